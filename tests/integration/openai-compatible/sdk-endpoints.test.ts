import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai-v7';
import { generateText, streamText } from 'ai-v7';
import { createOpenAI } from 'ai-sdk-openai-v4';
import { ChatOpenAI } from '@langchain/openai';
import { books, killAllProducts } from '../support/product/product';
import { sdk, startSurface, stopSurface, surfaceKey, type Setup } from './support';

// Each endpoint of /openai/v1 through npm start's server, as the official `openai` SDK, the AI SDK and
// LangChain call it: the answers in OpenAI's shapes, the units in headers, each call charged once.

let setup: Setup;

beforeAll(async () => {
  setup = await startSurface('wgs_openai_sdk', { RUN_WORKER: 'true' });
}, 300_000);

afterAll(async () => {
  killAllProducts();
  await stopSurface(setup);
});

describe('the OpenAI SDK on /openai/v1', () => {
  it("lists only the key's package's models, each naming its operation", async () => {
    const { key } = await surfaceKey();
    const { client } = sdk(setup.product.base, key);
    const models = await client.models.list();
    const ids = models.data.map((model) => [model.id, (model as unknown as { operation: string }).operation]);
    expect(ids).toContainEqual(['text.generate', 'text.generate']);
    expect(ids).toContainEqual(['gpt-4o-mini', 'text.generate']);
    expect(ids).toContainEqual(['whisper-1', 'audio.transcribe']);
    expect(JSON.stringify(models.data)).not.toContain('local');
    expect((await client.models.retrieve('gpt-image-1')).id).toBe('gpt-image-1');
    const missing = await client.models.retrieve('gpt-5').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    // It took a point of the key's minute, as the answers before it did, and says so.
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).headers?.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
  });

  it('answers a chat completion under an alias, with tokens and the units charged and remaining', async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const { client } = sdk(setup.product.base, key);
    const { data, response } = await client.chat.completions
      .create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Say hello' },
        ],
      })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('gpt-4o-mini');
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens);
    expect(response.headers.get('x-wgs-units-charged')).toBe('1');
    expect(response.headers.get('x-wgs-units-remaining')).toBe('9');
    expect(response.headers.get('x-ratelimit-limit-requests')).toBe('10000');
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 9, captured: 1, succeeded: 1 });
  });

  it('stops the built-in engine at max_tokens, as a model stops: finish_reason length, within the cap, streamed or not', async () => {
    const { key } = await surfaceKey({ quota: 10 });
    const { client } = sdk(setup.product.base, key);
    const messages = [{ role: 'user' as const, content: 'Tell me a long story about a lighthouse keeper and the sea.' }];
    const whole = await client.chat.completions.create({ model: 'text.generate', messages, max_tokens: 5 });
    expect(whole.choices[0]!.finish_reason).toBe('length');
    expect(whole.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(whole.usage!.completion_tokens).toBeLessThanOrEqual(5);
    const stream = await client.chat.completions.create({
      model: 'text.generate',
      messages,
      max_completion_tokens: 5,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let completionTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
    }
    expect(finish).toBe('length');
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(completionTokens).toBeLessThanOrEqual(5);
  });

  it('streams chat.completion.chunk events with a final usage chunk, charged once', async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const { client } = sdk(setup.product.base, key);
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'text.generate',
        messages: [{ role: 'user', content: 'Tell me a short story about a lighthouse keeper.' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    // CONTRACT.md §1: every answer, a stream too.
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null = null;
    const usages: unknown[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
      usages.push(chunk.usage);
    }
    // OpenAI's reference: with include_usage every chunk has `usage`, null but in the last (SDK audit: it was absent).
    expect(usages.slice(0, -1).every((each) => each === null)).toBe(true);
    expect(usages.at(-1)).toEqual(usage);
    expect(text.length).toBeGreaterThan(0);
    expect(finish).toBe('stop');
    expect(usage!.completion_tokens).toBeGreaterThan(0);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 9, captured: 1 });
  });

  it('answers a code model through chat completions', async () => {
    const { key } = await surfaceKey();
    const { client } = sdk(setup.product.base, key);
    const completion = await client.chat.completions.create({
      model: 'gpt-4.1-code',
      messages: [{ role: 'user', content: 'Write a function that adds two numbers.' }],
    });
    expect(completion.choices[0]!.message.content).toContain('```');
  });

  it('generates an image as b64_json and as a URL, speech as audio bytes, and transcribes a file sent inline', async () => {
    const { key } = await surfaceKey();
    const { client } = sdk(setup.product.base, key);
    const b64 = await client.images.generate({ model: 'gpt-image-1', prompt: 'A lighthouse at dawn', response_format: 'b64_json' });
    expect(Buffer.from(b64.data![0]!.b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const url = await client.images.generate({ model: 'gpt-image-1', prompt: 'A lighthouse at dusk' });
    const image = await fetch(url.data![0]!.url!);
    expect(image.headers.get('content-type')).toBe('image/png');
    const speech = await client.audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: 'Your order has shipped.',
      response_format: 'wav',
    });
    const wav = Buffer.from(await speech.arrayBuffer());
    expect(speech.headers.get('content-type')).toBe('audio/wav');
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    // A second of silence after the speech: the recording outlasts its last segment.
    const withSilence = Buffer.concat([wav, Buffer.alloc(wav.readUInt32LE(28))]);
    withSilence.writeUInt32LE(withSilence.length - 8, 4);
    withSilence.writeUInt32LE(withSilence.length - 44, 40);
    const transcript = await client.audio.transcriptions.create({
      model: 'whisper-1',
      file: await toFile(withSilence, 'speech.wav', { type: 'audio/wav' }),
      response_format: 'verbose_json',
      timestamp_granularities: ['segment'],
    });
    expect(typeof transcript.text).toBe('string');
    expect(Array.isArray(transcript.segments)).toBe(true);
    // Asked for none, the language transcribed in is the package's default (its first), as OpenAI names the one it heard.
    expect(transcript.language).toBe('en');
    // duration is the recording's length, as OpenAI's is, not where the last segment ends (outside audit).
    const recorded = (withSilence.length - 44) / wav.readUInt32LE(28); // the local engine's WAV: a 44-byte header, then PCM
    expect(transcript.duration).toBeCloseTo(recorded, 1);
    expect(transcript.segments!.at(-1)!.end).toBeLessThan(recorded - 0.5);
    // Python's mimetypes (so its SDK) names a .wav audio/x-wav, which uploads take; other spellings of the format are taken too.
    for (const type of ['audio/x-wav', 'audio/wave']) {
      const again = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav', { type }) });
      expect(typeof again.text).toBe('string');
    }
  });

  it('runs a video job and serves its content', async () => {
    const { key } = await surfaceKey();
    const { client } = sdk(setup.product.base, key);
    const video = await client.videos.create({ model: 'sora-2', prompt: 'Waves on a beach' });
    expect(video.object).toBe('video');
    expect(video.status).toBe('queued');
    // OpenAI's video object names its prompt (and was remixed from none), on create and on every read.
    expect([video.prompt, video.remixed_from_video_id]).toEqual(['Waves on a beach', null]);
    await expect.poll(async () => (await client.videos.retrieve(video.id)).status, { timeout: 60_000, interval: 500 }).toBe('completed');
    const completed = await client.videos.retrieve(video.id);
    expect(completed.prompt).toBe('Waves on a beach');
    // When the video may be deleted (OUTPUT_RETENTION_HOURS, 24 by default, after it was made), not a signed URL's expiry.
    expect(completed.expires_at).toBe(completed.completed_at! + 24 * 3600);
    // Another key's video, or none, is OpenAI's 404 in this surface's words.
    await expect(client.videos.retrieve('job_000000000000000000000000')).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('No such video.'),
    });
    const content = await client.videos.downloadContent(video.id);
    expect(content.headers.get('content-type')).toMatch(/^video\//);
    const whole = Buffer.from(await content.arrayBuffer());
    expect(whole.byteLength).toBeGreaterThan(100);
    expect(content.headers.get('content-length')).toBe(String(whole.byteLength));
    // A player seeks with one byte range, as on output URLs.
    const part = await fetch(`${setup.product.base}/openai/v1/videos/${video.id}/content`, {
      headers: { authorization: `Bearer ${key}`, range: 'bytes=0-99' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 0-99/${whole.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(0, 100));
  });
});

describe('the AI SDK and LangChain on /openai/v1', () => {
  it("runs the AI SDK's generateText and streamText, and LangChain's ChatOpenAI", async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const provider = createOpenAI({ baseURL: `${setup.product.base}/openai/v1`, apiKey: key });
    const generated = await generateText({ model: provider.chat('gpt-4o-mini'), prompt: 'Say hello', maxRetries: 0 });
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.usage.outputTokens).toBeGreaterThan(0);
    const streamed = streamText({ model: provider.chat('gpt-4o-mini'), prompt: 'Count to three', maxRetries: 0 });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text.length).toBeGreaterThan(0);
    const chat = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: key, configuration: { baseURL: `${setup.product.base}/openai/v1` } });
    const message = await chat.invoke('Say hello');
    expect(String(message.content).length).toBeGreaterThan(0);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 7, captured: 3 });
  });
});
