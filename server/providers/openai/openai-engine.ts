import OpenAI, { toFile } from 'openai';
import { z } from 'zod';
import type { CodeTask, Engine, ImageTask, MediaResult, SpeechTask, TextTask, Transcript, TranscribeTask, VideoTask } from '../engine';
import { cappedFetch } from '../capped-fetch';
import { checkedMedia } from '../checked-media';
import { ProviderUnavailableError } from '../engine';
import { openAiFailureKind } from './failure-kind';

// Any OpenAI-compatible server, through the official client with its own timeout and
// bounded retries (429 and 5xx). Every failure becomes ProviderUnavailableError: the
// caller answers 503 and never passes provider text on to the customer.

export interface OpenAiProviderConfig {
  name: string;
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  maxRetries: number;
}

const TEXT_SYSTEM: Record<TextTask['outputFormat'], string> = {
  text: 'Answer in plain text without markdown.',
  markdown: 'Answer in GitHub-flavoured markdown.',
  json: 'Answer with one JSON object and nothing else.',
};

const CODE_SYSTEM =
  'You write and analyse code. Never claim to have executed anything. Reply with one JSON object ' +
  '{"code": string, "explanation": string} and nothing else.';

const IMAGE_MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
const IMAGE_EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** A provider's segments, checked before anyone pays for them (extra members dropped). */
const TRANSCRIPT_SEGMENTS = z.array(
  z.object({ start: z.number().min(0), end: z.number().min(0), text: z.string() }).refine((segment) => segment.end >= segment.start),
);
const VIDEO_POLL_MS = 2_000;

function retryAfterOf(error: unknown): number {
  const header = (error as { headers?: Headers | Record<string, string> } | null)?.headers;
  const value = header instanceof Headers ? header.get('retry-after') : header?.['retry-after'];
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(Math.ceil(seconds), 300) : 5;
}

/**
 * The package's output cap in chat completions' terms: `max_completion_tokens` for reasoning
 * models (o-series, gpt-5 and later but their -chat variants), which refuse `max_tokens`;
 * `max_tokens` for the rest, which every OpenAI-compatible server takes (@ai-sdk/openai's rule).
 */
function outputCap(model: string, maxOutputTokens: number | undefined) {
  if (maxOutputTokens === undefined) return {};
  const reasoning = /^o\d/.test(model) || (/^gpt-([5-9]|\d{2,})/.test(model) && !/^gpt-\d+-chat/.test(model));
  return reasoning ? { max_completion_tokens: maxOutputTokens } : { max_tokens: maxOutputTokens };
}

export class OpenAiEngine implements Engine {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(
    private readonly config: OpenAiProviderConfig,
    private readonly model: string,
  ) {
    this.name = `${config.name}:${model}`;
    this.client = new OpenAI({
      apiKey: config.apiKey ?? 'not-set',
      baseURL: config.baseUrl,
      timeout: config.timeoutMs,
      maxRetries: config.maxRetries,
      fetch: cappedFetch,
    });
  }

  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (!this.config.apiKey) {
      console.error(`[provider ${this.config.name}] its API key environment variable is not set`);
      throw new ProviderUnavailableError(`provider ${this.config.name} has no API key configured`, 30, { kind: 'not_configured' });
    }
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw error;
      const status = (error as { status?: number }).status;
      console.error(`[provider ${this.name}] ${what} failed${status ? ` with HTTP ${status}` : ''}`);
      throw new ProviderUnavailableError(`${what} failed`, retryAfterOf(error), { cause: error, kind: openAiFailureKind(error) });
    }
  }

  private async chat(system: string, user: string, json: boolean, signal: AbortSignal, maxOutputTokens?: number): Promise<string> {
    const completion = await this.client.chat.completions.create(
      {
        model: this.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        ...(json ? { response_format: { type: 'json_object' as const } } : {}),
        ...outputCap(this.model, maxOutputTokens),
      },
      { signal },
    );
    const content = completion.choices[0]?.message?.content;
    // An answer with no text is no answer: 503 with nothing charged, not a paid empty result.
    if (typeof content !== 'string' || content.trim() === '')
      throw new ProviderUnavailableError('empty completion', 5, { kind: 'malformed' });
    return content;
  }

  generateText(task: TextTask, signal: AbortSignal): Promise<{ text: string }> {
    return this.call('text generation', async () => {
      const user = task.context ? `Context:\n${task.context}\n\nInput:\n${task.input}` : task.input;
      const text = await this.chat(TEXT_SYSTEM[task.outputFormat], user, task.outputFormat === 'json', signal, task.maxOutputTokens);
      if (task.outputFormat === 'json') {
        try {
          JSON.parse(text);
        } catch {
          throw new ProviderUnavailableError('the provider returned invalid JSON', 5, { kind: 'malformed' });
        }
      }
      return { text };
    });
  }

  generateCode(task: CodeTask, signal: AbortSignal): Promise<{ code: string; explanation: string }> {
    return this.call('code generation', async () => {
      const user = [
        task.language ? `Language: ${task.language}` : '',
        task.requirements.length ? `Requirements:\n${task.requirements.map((r) => `- ${r}`).join('\n')}` : '',
        `Input:\n${task.input}`,
      ]
        .filter(Boolean)
        .join('\n\n');
      const reply = await this.chat(CODE_SYSTEM, user, true, signal, task.maxOutputTokens);
      let parsed: unknown;
      try {
        parsed = JSON.parse(reply);
      } catch {
        throw new ProviderUnavailableError('the provider returned invalid JSON', 5, { kind: 'malformed' });
      }
      const { code, explanation } = (parsed ?? {}) as { code?: unknown; explanation?: unknown };
      if (typeof code !== 'string' || typeof explanation !== 'string') {
        throw new ProviderUnavailableError('the provider reply lacks code or explanation', 5, { kind: 'malformed' });
      }
      return { code, explanation };
    });
  }

  generateImage(task: ImageTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('image generation', async () => {
      const prompt = task.style ? `${task.prompt}\n\nStyle: ${task.style}` : task.prompt;
      // The input goes as what it is (`input.jpg`, image/jpeg): OpenAI refuses an untyped image part.
      const inputType = task.inputMimeType ?? 'image/png';
      const response = task.inputImage
        ? await this.client.images.edit(
            {
              model: this.model,
              prompt,
              output_format: task.format,
              image: await toFile(task.inputImage, `input.${IMAGE_EXTENSION[inputType] ?? 'png'}`, { type: inputType }),
            },
            { signal },
          )
        : await this.client.images.generate({ model: this.model, prompt, output_format: task.format }, { signal });
      const data = response.data?.[0];
      if (data?.b64_json) return checkedMedia(Buffer.from(data.b64_json, 'base64'), IMAGE_MIME[task.format], `${this.name} image`);
      throw new ProviderUnavailableError('the provider returned no image data', 5, { kind: 'malformed' });
    });
  }

  synthesizeSpeech(task: SpeechTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('speech synthesis', async () => {
      const response = await this.client.audio.speech.create(
        { model: this.model, input: task.text, voice: (task.voice ?? 'alloy') as 'alloy', response_format: task.format },
        { signal },
      );
      const bytes = Buffer.from(await response.arrayBuffer());
      if (bytes.length === 0) throw new ProviderUnavailableError('the provider returned no audio', 5, { kind: 'malformed' });
      return checkedMedia(bytes, task.format === 'mp3' ? 'audio/mpeg' : 'audio/wav', `${this.name} speech`);
    });
  }

  transcribe(task: TranscribeTask, signal: AbortSignal): Promise<Transcript> {
    return this.call('transcription', async () => {
      const file = await toFile(task.bytes, task.filename, { type: task.mimeType });
      const segmented = task.timestamps === 'segment';
      const result = (await this.client.audio.transcriptions.create(
        {
          model: this.model,
          file,
          ...(task.language ? { language: task.language.split('-')[0]! } : {}),
          response_format: segmented ? 'verbose_json' : 'json',
          ...(segmented ? { timestamp_granularities: ['segment' as const] } : {}),
        },
        { signal },
      )) as { text?: unknown; segments?: unknown };
      if (typeof result.text !== 'string') throw new ProviderUnavailableError('the provider returned no text', 5, { kind: 'malformed' });
      if (!segmented) return { text: result.text, segments: [] };
      const segments = TRANSCRIPT_SEGMENTS.safeParse(result.segments);
      if (!segments.success) throw new ProviderUnavailableError('the provider returned malformed segments', 5, { kind: 'malformed' });
      return { text: result.text, segments: segments.data.map((segment) => ({ ...segment, text: segment.text.trim() })) };
    });
  }

  generateVideo(task: VideoTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('video generation', async () => {
      let video = await this.client.videos.create(
        {
          model: this.model as never,
          prompt: task.prompt,
          ...(task.inputImage ? { input_reference: await toFile(task.inputImage, 'input', { type: task.inputMimeType }) } : {}),
        },
        { signal },
      );
      while (video.status === 'queued' || video.status === 'in_progress') {
        await new Promise((resolve) => setTimeout(resolve, VIDEO_POLL_MS));
        if (signal.aborted) throw new ProviderUnavailableError('video generation timed out', 5, { kind: 'timeout' });
        video = await this.client.videos.retrieve(video.id, { signal });
      }
      if (video.status !== 'completed') throw new ProviderUnavailableError('video generation failed');
      const content = await this.client.videos.downloadContent(video.id, {}, { signal });
      return checkedMedia(Buffer.from(await content.arrayBuffer()), 'video/mp4', `${this.name} video`);
    });
  }
}
