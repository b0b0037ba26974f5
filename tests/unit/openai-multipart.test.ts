import { describe, expect, it } from 'vitest';
import { ApiError } from '@/server/domain/errors';
import { MAX_FIELD_BYTES, MAX_FORM_PARTS, readMultipartBody } from '@/server/http/openai/openai-request';

// /openai/v1's multipart bodies (transcriptions, videos): a field sent twice meant whichever came
// last, and the call ran and was charged (outside audit); it is refused, as a repeated JSON member is.

function multipart(parts: [string, string | Blob][]): Request {
  const form = new FormData();
  for (const [name, value] of parts) form.append(name, value);
  return new Request('http://127.0.0.1/openai/v1/audio/transcriptions', { method: 'POST', body: form });
}

const refusal = (request: Request) =>
  readMultipartBody(request, 1024).then(
    () => null,
    (error: unknown) => (error instanceof ApiError ? { code: error.code, details: error.details, message: error.message } : error),
  );

describe('an /openai/v1 multipart body', () => {
  it('keeps each field once and a list field (name[]) as a list', async () => {
    const body = await readMultipartBody(
      multipart([
        ['model', 'audio.transcribe'],
        ['timestamp_granularities[]', 'segment'],
        ['timestamp_granularities[]', 'word'],
      ]),
      1024,
    );
    expect(body.fields).toEqual({ model: 'audio.transcribe', timestamp_granularities: ['segment', 'word'] });
  });

  it('refuses a field or a file sent twice, naming it', async () => {
    expect(
      await refusal(
        multipart([
          ['model', 'text.generate'],
          ['model', 'audio.transcribe'],
        ]),
      ),
    ).toEqual({
      code: 'invalid_request',
      message: 'model: send it once.',
      details: { param: 'model', code: 'invalid_value' },
    });
    const wav = new Blob([new Uint8Array(8)], { type: 'audio/wav' });
    expect(
      await refusal(
        multipart([
          ['file', wav],
          ['file', wav],
        ]),
      ),
    ).toMatchObject({ message: 'file: send one file.' });
  });

  it('takes a form of at most 64 parts, and refuses a larger one before parsing it (100,000 tiny parts held the thread for a minute)', async () => {
    const granularities = (count: number) =>
      Array.from({ length: count }, () => ['timestamp_granularities[]', 'segment'] as [string, string]);
    const most = await readMultipartBody(multipart(granularities(MAX_FORM_PARTS)), 1024);
    expect(most.fields.timestamp_granularities).toHaveLength(MAX_FORM_PARTS);
    expect(await refusal(multipart(granularities(MAX_FORM_PARTS + 1)))).toEqual({
      code: 'invalid_request',
      message: `The form has more than ${MAX_FORM_PARTS} parts.`,
      details: undefined,
    });
    const many = await readMultipartBody(multipart(granularities(20_000)), 10_000_000).catch((error: unknown) => error);
    expect(many).toMatchObject({ code: 'invalid_request', message: `The form has more than ${MAX_FORM_PARTS} parts.` });
  });

  it('reads a form as it arrives: a file whole and exact, a form past 64 parts refused while it still comes', async () => {
    const boundary = 'b0undary';
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
    const chunks = [part('model', 'audio.transcribe'), fileHead, 'RI', 'FF', '-'.repeat(700), `\r\n--${boundary}--\r\n`];
    /** A body of `next()`'s chunks: undefined ends it, null pauses it for good (a client that sends no more). */
    const streamed = (next: () => string | undefined | null) => {
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls++;
          const chunk = next();
          if (chunk === null) return new Promise<void>(() => {});
          if (chunk === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(chunk));
        },
      });
      const headers = { 'content-type': `multipart/form-data; boundary=${boundary}` };
      const request = new Request('http://127.0.0.1/openai/v1/audio/transcriptions', {
        method: 'POST',
        body,
        headers,
        duplex: 'half',
      } as RequestInit);
      return { request, pulls: () => pulls };
    };
    const whole = await readMultipartBody(streamed(() => chunks.shift()).request, 1024);
    expect(whole.fields).toEqual({ model: 'audio.transcribe' });
    expect(whole.files.file).toEqual({ bytes: Buffer.from(`RIFF${'-'.repeat(700)}`), mimeType: 'audio/wav', filename: 'a.wav' });
    // 20,000 parts (1.6 MB): refused at the 65th, not read to the body's limit first (1 MiB of them: 413).
    let many = 0;
    const endless = streamed(() => (many++ < 20_000 ? part('timestamp_granularities[]', 'segment') : undefined));
    expect(await refusal(endless.request)).toMatchObject({
      code: 'invalid_request',
      message: `The form has more than ${MAX_FORM_PARTS} parts.`,
    });
    // 65 parts, then a client that sends nothing more: refused now, not when a next chunk comes (docs audit).
    let sent = 0;
    const paused = streamed(() => (sent++ <= MAX_FORM_PARTS ? part('timestamp_granularities[]', 'segment') : null));
    expect(await refusal(paused.request)).toMatchObject({ message: `The form has more than ${MAX_FORM_PARTS} parts.` });
  });

  it('reads a field as UTF-8; refuses a part without a name, and a form without its closing delimiter', async () => {
    const boundary = 'b0undary';
    const request = (body: string) =>
      new Request('http://127.0.0.1/openai/v1/audio/transcriptions', {
        method: 'POST',
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
    const invalid = { code: 'invalid_request', message: 'The request body is not a valid multipart/form-data body.' };
    // A field is its bytes as UTF-8, whatever charset its part names (review: busboy applied base64 and latin1).
    const field = (type: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n--${boundary}--\r\n`;
    expect((await readMultipartBody(request(field('text/plain; charset=base64', 'hello')), 1024)).fields).toEqual({ prompt: 'hello' });
    expect((await readMultipartBody(request(field('text/plain; charset=latin1', 'café')), 1024)).fields).toEqual({ prompt: 'café' });
    expect(await refusal(request(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n--${boundary}--\r\n`))).toMatchObject(
      invalid,
    );
    // An empty name is no name (outside audit: a field named "" was taken, and the call charged).
    for (const disposition of ['form-data; name=""', 'form-data; name=""; filename="a.wav"']) {
      const part = `--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\nx\r\n--${boundary}--\r\n`;
      expect(await refusal(request(part))).toMatchObject(invalid);
    }
    expect(await refusal(request(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nx\r\n`))).toMatchObject(invalid);
  });

  it('takes a field of at most 128 KiB, of strict UTF-8 (as a JSON body), naming one that is not', async () => {
    const boundary = 'b0undary';
    const form = (value: Buffer) =>
      new Request('http://127.0.0.1/openai/v1/videos', {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n`),
          value,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
    const most = await readMultipartBody(form(Buffer.alloc(MAX_FIELD_BYTES, 'a')), 1);
    expect((most.fields.prompt as string).length).toBe(MAX_FIELD_BYTES);
    expect(await refusal(form(Buffer.alloc(MAX_FIELD_BYTES + 1, 'a')))).toMatchObject({
      code: 'invalid_request',
      details: { param: 'prompt', code: 'invalid_value' },
    });
    expect(await refusal(form(Buffer.from([0x61, 0xc3, 0x28])))).toMatchObject({ message: 'prompt is not valid UTF-8.' });
  });

  it('refuses a body in a content coding (gzip, br, any but identity) before reading it, as a JSON body is (outside audit: it ran, and was charged)', async () => {
    const form = (coding: string) => {
      const request = multipart([['model', 'audio.transcribe']]);
      const headers = new Headers(request.headers);
      headers.set('content-encoding', coding);
      return new Request(request, { headers });
    };
    for (const coding of ['gzip', 'br', 'zzz', ' GZIP ']) {
      expect(await refusal(form(coding))).toEqual({
        code: 'unsupported_media_type',
        message: 'Content-Encoding is not supported: send the body uncompressed.',
        details: undefined,
      });
    }
    expect((await readMultipartBody(form('identity'), 1024)).fields).toEqual({ model: 'audio.transcribe' });
  });
});
