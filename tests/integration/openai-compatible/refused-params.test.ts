import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { api, createTestKey, remainingUnits } from '../../helpers/api';
import { id3WrappedWav, mp3WithLargeTag } from '../../helpers/crafted-media';
import { sampleWav } from '../support/storage/uploads';

// /openai/v1 refuses what it cannot tell the meaning of, naming it, and charges nothing (outside
// audit): two token caps that differ (said to be "not supported", though both are), and a multipart
// field sent twice (whichever came last ran, and was charged).

afterAll(() => disconnectDb());

const OPERATIONS = {
  'text.generate': { engine: 'local', units: 1 },
  'audio.transcribe': { engine: 'local', units: 2 },
  'images.generate': { engine: 'local', units: 3 },
};

function chat(key: string, body: Record<string, unknown>) {
  return api(
    new Request('http://127.0.0.1/openai/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text.generate', messages: [{ role: 'user', content: 'hi' }], ...body }),
    }),
  );
}

/** POST /openai/v1/audio/transcriptions with `key`: a FormData, or bytes with their Content-Type in `headers`. */
function transcription(key: string, body: BodyInit, headers: Record<string, string> = {}) {
  return api(
    new Request('http://127.0.0.1/openai/v1/audio/transcriptions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...headers },
      body,
    }),
  );
}

/** The form an SDK sends: model audio.transcribe and the file, of `type`, named `filename`. */
function fileForm(bytes: Uint8Array, type: string, filename: string): FormData {
  const form = new FormData();
  form.append('model', 'audio.transcribe');
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  return form;
}

describe('/openai/v1 refuses what it cannot tell the meaning of', () => {
  it('max_tokens and max_completion_tokens: both may come if they agree; if they differ, 400 naming max_tokens', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const differ = await chat(key, { max_tokens: 10, max_completion_tokens: 20 });
    expect(differ.status).toBe(400);
    expect(await differ.json()).toMatchObject({
      error: { type: 'invalid_request_error', param: 'max_tokens', code: 'invalid_value', message: expect.stringContaining('differ') },
    });
    expect(await remainingUnits(id)).toBe(10);
    expect((await chat(key, { max_tokens: 10, max_completion_tokens: 10 })).status).toBe(200);
    expect(await remainingUnits(id)).toBe(9);
  });

  it('response_format {"type": "text"} is asked for as surely as JSON: served, or refused when the package allows no text (settings audit)', async () => {
    const formats = (outputFormats: string[]) =>
      createTestKey({ operations: { 'text.generate': { engine: 'local', units: 1, output_formats: outputFormats } }, quota: 10 });
    const content = async (response: Response) =>
      ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
    const either = await formats(['json', 'text']);
    const asDefault = await content(await chat(either.key, {}));
    expect(() => JSON.parse(asDefault)).not.toThrow(); // the package's first format
    const asText = await content(await chat(either.key, { response_format: { type: 'text' } }));
    expect(() => JSON.parse(asText)).toThrow(); // text, as asked (it was JSON, the default)
    const jsonOnly = await formats(['json']);
    const refused = await chat(jsonOnly.key, { response_format: { type: 'text' } });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { param: 'response_format', code: 'unsupported_value' } });
    expect(await remainingUnits(jsonOnly.id)).toBe(10);
  });

  it('a multipart field sent twice is 400 naming it, and nothing is charged', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const form = new FormData();
    form.append('model', 'text.generate');
    form.append('model', 'audio.transcribe');
    form.append('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav');
    const response = await transcription(key, form);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'model', code: 'invalid_value', message: 'model: send it once.' } });
    expect(await remainingUnits(id)).toBe(10);
  });

  it('a multipart body in a content coding (Content-Encoding, any but identity) is 400 unsupported_media_type, as a JSON body is, and nothing is charged (outside audit)', async () => {
    const { id, key } = await createTestKey({
      operations: { ...OPERATIONS, 'videos.generate': { engine: 'local', units: 5 } },
      quota: 10,
    });
    const wav = await sampleWav('Hi.');
    const unsupported = {
      error: {
        type: 'invalid_request_error',
        param: null,
        code: 'unsupported_media_type',
        message: expect.stringContaining('Content-Encoding'),
      },
    };
    for (const coding of ['gzip', 'br', 'zzz']) {
      const refused = await transcription(key, fileForm(wav, 'audio/wav', 'a.wav'), { 'content-encoding': coding });
      expect(refused.status, coding).toBe(400);
      expect(await refused.json()).toMatchObject(unsupported);
    }
    // A form really gzipped is refused the same way (it was a 400 invalid_request: the gzip read as a form).
    const form = new Request('http://x/', { method: 'POST', body: fileForm(wav, 'audio/wav', 'a.wav') });
    const gzipped = gzipSync(Buffer.from(await form.arrayBuffer()));
    const type = { 'content-type': form.headers.get('content-type')!, 'content-encoding': 'gzip' };
    expect(await (await transcription(key, gzipped, type)).json()).toMatchObject(unsupported);
    const video = new FormData();
    video.append('prompt', 'A lighthouse at dusk');
    const videoRefused = await api(
      new Request('http://127.0.0.1/openai/v1/videos', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-encoding': 'gzip' },
        body: video,
      }),
    );
    expect(videoRefused.status).toBe(400);
    expect(await videoRefused.json()).toMatchObject(unsupported);
    // A type it does not take names both it does (it said multipart only, though JSON is taken too: edges audit).
    const videoAsText = await api(
      new Request('http://127.0.0.1/openai/v1/videos', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
        body: 'A lighthouse at dusk',
      }),
    );
    expect(videoAsText.status).toBe(400);
    expect(((await videoAsText.json()) as { error: { message: string } }).error.message).toBe(
      'Content-Type must be multipart/form-data or application/json.',
    );
    expect(await remainingUnits(id)).toBe(10);
    expect((await transcription(key, fileForm(wav, 'audio/wav', 'a.wav'), { 'content-encoding': 'identity' })).status).toBe(200);
  });

  it('a multipart part with an empty name is refused as one without a name: 400 invalid_request, and nothing is charged (outside audit)', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const form = fileForm(await sampleWav('Hi.'), 'audio/wav', 'a.wav');
    form.append('', 'x');
    const refused = await transcription(key, form);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'invalid_request',
        message: 'The request body is not a valid multipart/form-data body.',
      },
    });
    expect(await remainingUnits(id)).toBe(10);
  });

  it('verbose_json on a package that allows no timestamps is refused naming response_format, the parameter sent (settings audit)', async () => {
    const { id, key } = await createTestKey({
      operations: { 'audio.transcribe': { engine: 'local', units: 2, timestamps: ['none'] } },
      quota: 10,
    });
    const form = fileForm(await sampleWav('Hi.'), 'audio/wav', 't.wav');
    form.append('response_format', 'verbose_json');
    const refused = await transcription(key, form);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { param: 'response_format', code: 'unsupported_value', message: expect.stringContaining("verbose_json's segment timestamps") },
    });
    expect(await remainingUnits(id)).toBe(10);
    const plain = fileForm(await sampleWav('Hi.'), 'audio/wav', 't.wav');
    plain.append('response_format', 'json');
    expect((await transcription(key, plain)).status).toBe(200);
  });

  it("an inline MP3 is checked as an upload's: one whose ID3 tag hides another container is 400, and nothing is charged (outside audit)", async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const transcribe = (bytes: Buffer) => transcription(key, fileForm(bytes, 'audio/mpeg', 'a.mp3'));
    const crafted = await transcribe(await id3WrappedWav());
    expect(crafted.status).toBe(400);
    expect(await crafted.json()).toMatchObject({
      error: { param: 'file', code: 'content_mismatch', message: expect.stringContaining('no MPEG audio frames follow its ID3 tag') },
    });
    expect(await remainingUnits(id)).toBe(10);
    expect((await transcribe(await mp3WithLargeTag())).status).toBe(200);
    expect(await remainingUnits(id)).toBe(8);
  });

  it('a transcription form as clients send it: a file part without a type is taken for its bytes; a language that is no tag, a field past 128 KiB and a file name an upload may not have are 400, free (outside audit)', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const boundary = 'formBoundary7';
    const wav = await sampleWav('Hi.');
    // As Python's requests sends a file: its part names no Content-Type.
    const form = (language: string) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\naudio.transcribe\r\n`),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\n${language}\r\n`),
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.wav"\r\n\r\n`),
        wav,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    const transcribe = (language: string) =>
      transcription(key, form(language), { 'content-type': `multipart/form-data; boundary=${boundary}` });
    const untyped = await transcribe('en');
    expect(untyped.status, await untyped.clone().text()).toBe(200);
    expect(await remainingUnits(id)).toBe(8);
    const notATag = await transcribe('english, please');
    expect(notATag.status).toBe(400);
    expect(await notATag.json()).toMatchObject({ error: { param: 'language', code: 'invalid_value' } });
    const long = await transcribe('e'.repeat(200_000));
    expect(long.status).toBe(400);
    expect(Number(long.headers.get('content-length') ?? (await long.clone().text()).length)).toBeLessThan(1000);
    expect(await long.json()).toMatchObject({ error: { param: 'language', message: 'language: a field holds at most 131072 bytes.' } });
    // A file's name follows an upload's rules: no control or bidirectional-override character, at most 180.
    const badName = await transcription(key, fileForm(wav, 'audio/wav', 'clip\u202Evaw.exe'));
    expect(badName.status).toBe(400);
    // Another name of an accepted format (audio/webm) on bytes of another: a mismatch, as for the format's own name.
    const mismatch = await transcription(key, fileForm(wav, 'audio/webm', 'clip.webm'));
    expect(await mismatch.json()).toMatchObject({ error: { param: 'file', code: 'content_mismatch' } });
    expect(await badName.json()).toMatchObject({
      error: { param: 'file', code: 'invalid_value', message: expect.stringContaining('must not contain control characters') },
    });
    expect(await remainingUnits(id)).toBe(8);
  });

  it("an API this surface does not serve is 404 naming its method and path, in OpenAI's format", async () => {
    const { key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const response = await api(
      new Request('http://127.0.0.1/openai/v1/embeddings', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'text-embedding-3-small', input: 'hi' }),
      }),
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'not_found',
        message: expect.stringContaining('POST /openai/v1/embeddings is not served'),
      },
    });
  });

  it("images without a model run images.generate, as OpenAI's default model; a model that is not a string is 400 invalid_type", async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const images = (body: Record<string, unknown>) =>
      api(
        new Request('http://127.0.0.1/openai/v1/images/generations', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: 'A lighthouse', response_format: 'b64_json', ...body }),
        }),
      );
    const wrongType = await images({ model: ['images.generate'] });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({ error: { param: 'model', code: 'invalid_type' } });
    expect(await remainingUnits(id)).toBe(10);
    const defaulted = await images({});
    expect(defaulted.status, await defaulted.clone().text()).toBe(200);
    expect((await defaulted.json()).data).toHaveLength(1);
    expect(await remainingUnits(id)).toBe(7);
  });

  it("a key whose package sells none of a path's operations is refused before its body is read: 404 model_not_found", async () => {
    const { id, key } = await createTestKey({ operations: { 'text.generate': { engine: 'local', units: 1 } }, quota: 10 });
    const response = await transcription(key, 'garbage', {
      'content-type': 'multipart/form-data; boundary=x',
      'idempotency-key': 'bad key',
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: {
        param: 'model',
        code: 'model_not_found',
        message: "This key's package sells no model for POST /openai/v1/audio/transcriptions.",
      },
    });
    expect(await remainingUnits(id)).toBe(10);
  });

  it('a member of a message or of its text part that is not served is refused naming it (a part nesting 3,000 levels was fingerprinted into a 500)', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const deep = (levels: number): unknown => (levels === 0 ? 0 : [deep(levels - 1)]);
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', x: deep(100) }] }] },
        'messages[0].content[0].x',
        'unsupported_parameter',
      ],
      [{ messages: [{ role: 'user', content: 'hi', name: { first: 'Ann' } }] }, 'messages[0].name', 'invalid_type'],
    ];
    for (const [body, param, code] of cases) {
      const response = await chat(key, body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', param, code } });
    }
    // 3,000 levels are refused before the body is parsed (they were fingerprinted into a 500).
    const deeper = await chat(key, { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', x: deep(3_000) }] }] });
    expect(deeper.status).toBe(400);
    expect(await deeper.json()).toMatchObject({
      error: { type: 'invalid_request_error', message: 'The request body nests more than 128 levels deep.' },
    });
    expect(await remainingUnits(id)).toBe(10);
  });

  it('a lone surrogate or NUL in a message is refused naming where it was sent, and an unknown model is echoed at most 200 characters (fuzz audit)', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const cases: [unknown, string][] = [
      [[{ role: 'user', content: 'hi \ud800' }], 'messages[0].content'],
      [
        [
          { role: 'system', content: 'be\u0000brief' },
          { role: 'user', content: 'hi' },
        ],
        'messages[0].content',
      ],
      [
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'ok' },
              { type: 'text', text: '\udc00' },
            ],
          },
        ],
        'messages[0].content[1].text',
      ],
    ];
    for (const [messages, param] of cases) {
      const response = await chat(key, { messages });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { param, code: 'invalid_value' } });
    }
    const cut = await chat(key, { model: `${'m'.repeat(199)}😀b` }); // cut after whole characters, never inside one
    expect((await cut.json()).error.message).toContain(`${'m'.repeat(199)}😀…`);
    const unknown = await chat(key, { model: 'm'.repeat(10_000) });
    expect(unknown.status).toBe(404);
    const { message } = (await unknown.json()).error;
    expect(message).toBe(`The model \`${'m'.repeat(200)}…\` does not exist or this key's package does not sell it.`);
    expect(await remainingUnits(id)).toBe(10);
  });

  it('x-stainless-retry-count that is not a count in decimal digits marks a first attempt, run and charged (fuzz audit)', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const call = (retry: string) =>
      api(
        new Request('http://127.0.0.1/openai/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-stainless-retry-count': retry },
          body: JSON.stringify({ model: 'text.generate', messages: [{ role: 'user', content: 'same' }] }),
        }),
      );
    const ids = [];
    for (const retry of ['0', '0x1', '1.0', '1e0']) {
      const response = await call(retry);
      expect(response.status, retry).toBe(200);
      expect(response.headers.get('idempotent-replayed'), retry).toBeNull();
      ids.push((await response.json()).id);
    }
    expect(new Set(ids).size).toBe(4);
    const retried = await call('01');
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect((await retried.json()).id).toBe(ids[3]);
    expect(await remainingUnits(id)).toBe(6);
  });
});
