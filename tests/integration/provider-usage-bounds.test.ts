import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool } from '@/server/db/client';
import { api, call, createTestKey } from '../helpers/api';
import { openStream } from '../helpers/event-stream';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// What a provider says it used is believed only within what a call can use (engines audit: -500
// tokens lowered a key's day cost; 1e15 overflowed the usage columns, so the call answered 500 and
// held its units and slot until the sweep), and a streamed answer is cut off at the reply cap
// (streams audit: a provider ignoring max_tokens streamed 128 MB and the server ran out of heap).

process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();
const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_BOUNDS_KEY: 'sk-fake-bounds' });
beforeEach(() => fake.reset());
afterAll(() => fake.reset());

let providers = 0;
/** A key whose text goes to the fake, then (when `fallback`) to the local engine. */
const compatibleKey = (fallback = false) => {
  const name = `bounds${++providers}`;
  return createTestKey({
    quota: 100,
    providers: {
      [name]: {
        type: 'openai-compatible',
        base_url: fake.baseUrl,
        api_key_env: 'WGS_PROVIDER_KEY_FAKE_BOUNDS_KEY',
        prices: { m: { input_per_mtok: 1000, output_per_mtok: 2000 } },
      },
    },
    operations: { 'text.generate': { engine: fallback ? [`${name}:m`, 'local'] : `${name}:m`, units: 2 } },
  });
};

const keyState = async (id: string) =>
  (
    await getPool().query<{ remaining_units: number; in_flight: number; cost: string }>(
      'SELECT remaining_units, in_flight, cost_today::float8::text AS cost FROM api_keys WHERE id = $1',
      [id],
    )
  ).rows[0]!;

describe('usage no call can have', () => {
  it('negative, fractional or past any column: a malformed answer (503, no unit charged, the key free), or the next engine answers', async () => {
    for (const usage of [
      { prompt_tokens: -500, completion_tokens: -7 },
      { prompt_tokens: 1e15, completion_tokens: 9e15 },
      { prompt_tokens: 2.5, completion_tokens: 1 },
    ]) {
      const { key, id } = await compatibleKey();
      fake.setUsage(usage);
      const refused = await call(api, '/v1/text/generate', { input: 'Count me' }, { key, idempotencyKey: `bounds-${usage.prompt_tokens}` });
      expect(refused.status, refused.text).toBe(503);
      expect(refused.json.error.code).toBe('provider_unavailable');
      // A malformed 2xx: its prompt's tokens, estimated (8 characters: 2), not the figure it sent.
      expect(await keyState(id)).toEqual({ remaining_units: 100, in_flight: 0, cost: '0.002' });
      fake.setUsage(undefined);
      const retried = await call(api, '/v1/text/generate', { input: 'Count me' }, { key, idempotencyKey: `bounds-${usage.prompt_tokens}` });
      expect(retried.status, retried.text).toBe(200); // the key was left free for the retry
    }
    const { key, id } = await compatibleKey(true);
    fake.setUsage({ prompt_tokens: 1e15, completion_tokens: 9e15 });
    const fellBack = await call(api, '/v1/text/generate', { input: 'Count me' }, { key });
    expect(fellBack.status, fellBack.text).toBe(200);
    expect(fellBack.json.engine ?? 'local').toBe('local');
    expect((await keyState(id)).remaining_units).toBe(98);
  });
});

describe('cached prompt tokens past the prompt', () => {
  it('are believed up to the prompt: the answer is served and charged, its cost priced by the table', async () => {
    const { key, id } = await createTestKey({
      quota: 100,
      providers: { tabled: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_BOUNDS_KEY' } },
      operations: { 'text.generate': { engine: 'tabled:gpt-4o-mini', units: 2 } },
    });
    fake.setUsage({ prompt_tokens: 100, completion_tokens: 10, prompt_tokens_details: { cached_tokens: 900 } });
    const answered = await call(api, '/v1/text/generate', { input: 'Count me' }, { key });
    expect(answered.status, answered.text).toBe(200);
    expect(await keyState(id)).toMatchObject({ remaining_units: 98, in_flight: 0 });
    const { rows } = await getPool().query<{ cached_input_tokens: number; provider_cost: string | null }>(
      'SELECT cached_input_tokens, provider_cost::text FROM usage_events WHERE api_key_id = $1',
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.cached_input_tokens).toBe(100);
    expect(Number(rows[0]!.provider_cost)).toBeGreaterThan(0);
  });
});

describe('a streamed answer past the reply cap', () => {
  it('is cut off as a provider failure after its first pieces: output_interrupted, charged once, the server whole', async () => {
    const { key, id } = await compatibleKey();
    fake.setReply(`${'x'.repeat(65_535)} `.repeat(272)); // 17 MiB in 64 KiB pieces
    const events = await (await openStream(key, { input: 'Say a lot' })).rest();
    expect(events.at(-1)!.event).toBe('error');
    expect(events.at(-1)!.data.error.code).toBe('output_interrupted');
    const delivered = events.filter((event) => event.event === 'delta').reduce((sum, event) => sum + event.data.text.length, 0);
    expect(delivered).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(await keyState(id)).toMatchObject({ remaining_units: 98, in_flight: 0 });
    fake.setReply('a short one');
    expect((await (await openStream(key, { input: 'And now?' })).rest()).at(-1)!.event).toBe('done');
  });
});
