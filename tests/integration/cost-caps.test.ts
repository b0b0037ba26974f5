import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { sampleWav, verifiedUpload } from './support/storage/uploads';

// Cost caps of a package (docs/providers.md): max_output_tokens reaches the provider in its own
// terms, and only when set; max_input_seconds refuses a longer recording before any charge.

process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WGS_PROVIDER_KEY_CAPS_FAKE_KEY = 'sk-caps-fake-0123456789';
resetConfigForTests();

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

type Sent = Record<string, unknown>;
const sent = (): Sent => fake.calls[0]!.body as Sent;
const CODE_REPLY = JSON.stringify({ code: 'const a = 1;', explanation: 'One constant.' });

function keyFor(type: 'openai' | 'openai-compatible', model: string, caps: { text?: number; code?: number }) {
  const cap = (value: number | undefined) => (value === undefined ? {} : { max_output_tokens: value });
  return createTestKey({
    providers: { fake: { type, base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_CAPS_FAKE_KEY' } },
    operations: {
      'text.generate': { engine: `fake:${model}`, units: 1, ...cap(caps.text) },
      'code.generate': { engine: `fake:${model}`, units: 1, ...cap(caps.code) },
    },
  });
}

describe('max_output_tokens reaches the provider', () => {
  it('type openai: max_tokens on text and code; no cap field at all when the package sets none', async () => {
    const capped = await keyFor('openai', 'gpt-4.1-mini', { text: 64, code: 128 });
    expect((await call(api, '/v1/text/generate', { input: 'hi' }, { key: capped.key })).status).toBe(200);
    expect(sent().max_tokens).toBe(64);
    expect(sent()).not.toHaveProperty('max_completion_tokens');
    fake.reset();
    expect((await call(api, '/v1/code/generate', { input: 'a constant' }, { key: capped.key })).status).toBe(200);
    expect(sent().max_tokens).toBe(128);

    const open = await keyFor('openai', 'gpt-4.1-mini', {});
    fake.reset();
    expect((await call(api, '/v1/text/generate', { input: 'hi' }, { key: open.key })).status).toBe(200);
    expect(sent()).not.toHaveProperty('max_tokens');
    expect(sent()).not.toHaveProperty('max_completion_tokens');
    fake.reset();
    expect((await call(api, '/v1/code/generate', { input: 'a constant' }, { key: open.key })).status).toBe(200);
    expect(sent()).not.toHaveProperty('max_tokens');
    expect(sent()).not.toHaveProperty('max_completion_tokens');
  });

  it('type openai, a reasoning model: max_completion_tokens (which such models take instead of max_tokens)', async () => {
    const { key } = await keyFor('openai', 'o4-mini', { text: 300 });
    expect((await call(api, '/v1/text/generate', { input: 'hi' }, { key })).status).toBe(200);
    expect(sent().max_completion_tokens).toBe(300);
    expect(sent()).not.toHaveProperty('max_tokens');
  });

  it('an AI SDK type (openai-compatible): the SDK maxOutputTokens, sent as max_tokens; none when unset', async () => {
    const capped = await keyFor('openai-compatible', 'llama-3', { text: 77, code: 99 });
    expect((await call(api, '/v1/text/generate', { input: 'hi' }, { key: capped.key })).status).toBe(200);
    expect(sent().max_tokens).toBe(77);
    fake.reset();
    fake.setReply(CODE_REPLY);
    const code = await call(api, '/v1/code/generate', { input: 'a constant' }, { key: capped.key });
    expect(code.status, code.text).toBe(200);
    expect(sent().max_tokens).toBe(99);

    const open = await keyFor('openai-compatible', 'llama-3', {});
    fake.reset();
    expect((await call(api, '/v1/text/generate', { input: 'hi' }, { key: open.key })).status).toBe(200);
    expect(sent()).not.toHaveProperty('max_tokens');
  });
});

describe('packages apply says when an operation has no output cap', () => {
  it('one notice per uncapped text or code operation that may call a provider; none for a capped or local-only one', async () => {
    const definition = (operations: Record<string, unknown>) =>
      parsePackagesFile({
        providers: { capsnotice: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } },
        packages: [
          { slug: 'caps-notice', name: 'Caps notice', quota_units: 10, limits: { requests_per_minute: 10, concurrency: 1 }, operations },
        ],
      });
    const uncapped = await applyPackages(
      getPrisma(),
      CLI_ACTOR,
      definition({
        'text.generate': { engine: ['capsnotice:llama-3', 'local'], units: 1 },
        'code.generate': { engine: 'capsnotice:llama-3', units: 1, max_output_tokens: 500 },
      }),
    );
    expect(uncapped.notices).toEqual([
      "package caps-notice: text.generate has no output cap (max_output_tokens unset): each call may ask for the provider's own maximum",
    ]);
    // The local engine calls no provider: nothing to cap.
    const local = await applyPackages(getPrisma(), CLI_ACTOR, definition({ 'text.generate': { engine: 'local', units: 1 } }));
    expect(local.notices).toEqual([]);
  });
});

describe('max_input_seconds', () => {
  const transcribeKey = (maxInputSeconds: number) =>
    createTestKey({
      operations: { 'audio.transcribe': { engine: 'local', units: 4, max_input_seconds: maxInputSeconds } },
    });

  it('a longer recording is 422 naming input_upload_id with the limit in details, nothing charged; a shorter one is served', async () => {
    const audio = await sampleWav('Hello there. This is a short test of a recording that lasts a few seconds. Goodbye now.');
    const short = await transcribeKey(1);
    const uploadId = await verifiedUpload(short.key, { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' }, audio);
    const before = await remainingUnits(short.id);
    const refused = await call(api, '/v1/audio/transcribe', { input_upload_id: uploadId }, { key: short.key });
    expectEnvelope(refused, 422, 'validation_error');
    const details = refused.json.error.details;
    expect(details.issues).toEqual([
      {
        path: 'input_upload_id',
        code: 'input_too_long',
        message: "input_upload_id: the recording is longer than 1 s, which is the most this key's package transcribes.",
      },
    ]);
    expect(details).toEqual({ issues: details.issues, max_input_seconds: 1 });
    expect(await remainingUnits(short.id)).toBe(before);
    const holds = await getPrisma().unitHold.count({ where: { apiKeyId: short.id } });
    const usage = await getPrisma().usageEvent.count({ where: { apiKeyId: short.id } });
    expect({ holds, usage }).toEqual({ holds: 0, usage: 0 });

    const long = await transcribeKey(600);
    const longId = await verifiedUpload(long.key, { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' }, audio);
    const served = await call(api, '/v1/audio/transcribe', { input_upload_id: longId }, { key: long.key });
    expect(served.status, served.text).toBe(200);
    expect(served.json.usage.charged_units).toBe(4);
  });
});
