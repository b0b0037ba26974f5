import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { api, createTestKey, remainingUnits } from '../../helpers/api';

// /openai/v1 refuses what it cannot tell the meaning of, naming it, and charges nothing (outside
// audit): two token caps that differ (said to be "not supported", though both are), and a multipart
// field sent twice (whichever came last ran, and was charged).

afterAll(() => disconnectDb());

const OPERATIONS = { 'text.generate': { engine: 'local', units: 1 }, 'audio.transcribe': { engine: 'local', units: 2 } };

function chat(key: string, body: Record<string, unknown>) {
  return api(
    new Request('http://127.0.0.1/openai/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'text.generate', messages: [{ role: 'user', content: 'hi' }], ...body }),
    }),
  );
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

  it('a multipart field sent twice is 400 naming it, and nothing is charged', async () => {
    const { id, key } = await createTestKey({ operations: OPERATIONS, quota: 10 });
    const form = new FormData();
    form.append('model', 'text.generate');
    form.append('model', 'audio.transcribe');
    form.append('file', new Blob([new Uint8Array(64)], { type: 'audio/wav' }), 'a.wav');
    const response = await api(
      new Request('http://127.0.0.1/openai/v1/audio/transcriptions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { param: 'model', code: 'invalid_value', message: 'model: send it once.' } });
    expect(await remainingUnits(id)).toBe(10);
  });
});
