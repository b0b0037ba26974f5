import { describe, expect, it } from 'vitest';
import { ApiError } from '@/server/domain/errors';
import { MAX_FORM_PARTS, readMultipartBody } from '@/server/http/openai/openai-request';

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
});
