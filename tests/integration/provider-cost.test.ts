import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool } from '@/server/db/client';
import { clearKeyCache } from '@/server/domain/keys/authenticate-key';
import { currentMetrics, enableMetrics } from '@/server/observability/metrics';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { api, call, createTestKey, expectEnvelope } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';

// Provider usage and cost on every usage event, against a fake OpenAI server that reports 5
// input and 7 output tokens per completion; and the daily provider-cost budget at its edge.

process.env.WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY = 'sk-fake-cost';
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  await enableMetrics();
});
afterAll(async () => {
  await fake.close();
  await disconnectDb();
});
beforeEach(() => fake.reset());

const TEXT = '/v1/text/generate';

// Each key has its own provider name: an engine (and its prices) is cached per instance for a few seconds.
let providers = 0;
function keyFor(model: string, extra: { prices?: Record<string, unknown>; budget?: number; unitPrice?: number } = {}) {
  const provider = `fake${++providers}`;
  return createTestKey({
    providers: {
      [provider]: {
        type: 'openai',
        base_url: fake.baseUrl,
        api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY',
        ...(extra.prices ? { prices: extra.prices } : {}),
      },
    },
    operations: { 'text.generate': { engine: `${provider}:${model}`, units: 2 } },
    maxProviderCostPerDay: extra.budget,
    unitPrice: extra.unitPrice,
  });
}

interface EventRow {
  outcome: string;
  input_tokens: number | null;
  output_tokens: number | null;
  characters: number | null;
  provider_cost: string | null;
  unpriced: boolean;
}

async function events(keyId: string): Promise<EventRow[]> {
  const { rows } = await getPool().query<EventRow>(
    `SELECT outcome, input_tokens, output_tokens, characters, provider_cost::text, unpriced
       FROM usage_events WHERE api_key_id = $1 ORDER BY created_at`,
    [keyId],
  );
  return rows;
}

describe('provider usage and cost per event', () => {
  it('prices a model genai-prices knows from its table (gpt-4o-mini: 0.15 / 0.60 per Mtok)', async () => {
    const { key, id } = await keyFor('gpt-4o-mini');
    const result = await call(api, TEXT, { input: 'hi' }, { key });
    expect(result.status, result.text).toBe(200);
    // 5 × 0.15 / 1e6 + 7 × 0.60 / 1e6
    expect(await events(id)).toEqual([
      { outcome: 'succeeded', input_tokens: 5, output_tokens: 7, characters: null, provider_cost: '0.0000049500', unpriced: false },
    ]);
  });

  it("prices by the operator's override of the model; wgs_provider_cost_total carries the same cost", async () => {
    const { key, id } = await keyFor('model-x', { prices: { 'model-x': { input_per_mtok: 3, output_per_mtok: 15 } } });
    expect((await call(api, TEXT, { input: 'hi' }, { key })).status).toBe(200);
    expect((await call(api, TEXT, { input: 'hi again' }, { key })).status).toBe(200);
    const exposition = parsePrometheusText(await currentMetrics()!.registry.metrics());
    const provider = `fake${providers}`;
    expect(sampleValue(exposition, 'wgs_provider_cost_total', { provider, model: 'model-x' })).toBeCloseTo(0.00024, 12);
    // 5 × 3 / 1e6 + 7 × 15 / 1e6
    expect((await events(id))[0]).toMatchObject({ input_tokens: 5, output_tokens: 7, provider_cost: '0.0001200000', unpriced: false });
  });

  it('flags a model with no known price as unpriced, its tokens still recorded, no cost guessed', async () => {
    const { key, id } = await keyFor('model-x');
    expect((await call(api, TEXT, { input: 'hi' }, { key })).status).toBe(200);
    expect((await events(id))[0]).toMatchObject({ input_tokens: 5, output_tokens: 7, provider_cost: null, unpriced: true });
  });

  it('an override that lacks the price of a reported quantity is unpriced, not half-priced', async () => {
    const { key, id } = await keyFor('model-x', { prices: { 'model-x': { input_per_mtok: 3 } } });
    expect((await call(api, TEXT, { input: 'hi' }, { key })).status).toBe(200);
    expect((await events(id))[0]).toMatchObject({ provider_cost: null, unpriced: true });
  });

  it('a failed call is recorded with what the provider reported (nothing) and no cost', async () => {
    const { key, id } = await keyFor('gpt-4o-mini');
    fake.setMode({ kind: 'status', status: 500 });
    expectEnvelope(await call(api, TEXT, { input: 'hi' }, { key }), 503, 'provider_unavailable');
    expect(await events(id)).toEqual([
      { outcome: 'failed', input_tokens: null, output_tokens: null, characters: null, provider_cost: null, unpriced: false },
    ]);
  });

  it('the local engine reports its own figures and costs nothing', async () => {
    const { key, id } = await createTestKey({ operations: { 'audio.speech': { engine: 'local', units: 1 } } });
    const result = await call(api, '/v1/audio/speech', { text: 'Hello there' }, { key });
    expect(result.status, result.text).toBe(200);
    expect((await events(id))[0]).toMatchObject({ characters: 11, provider_cost: '0.0000000000', unpriced: false });
  });
});

describe('max_provider_cost_per_day', () => {
  // Each call costs 12 × 100,000 / 1e6 = 1.2.
  const prices = { 'model-x': { input_per_mtok: 100_000, output_per_mtok: 100_000 } };

  it('refuses the next paid request once the day’s cost reached the budget, 429 budget until UTC midnight', async () => {
    const { key, id } = await keyFor('model-x', { prices, budget: 2.4 });
    expect((await call(api, TEXT, { input: 'a' }, { key })).status).toBe(200);
    expect((await call(api, TEXT, { input: 'b' }, { key })).status).toBe(200); // 1.2 < 2.4: allowed
    const refused = await call(api, TEXT, { input: 'c' }, { key }); // 2.4 >= 2.4
    expectEnvelope(refused, 429, 'rate_limited');
    expect(refused.json.error.details).toEqual({ reason: 'budget' });
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(retryAfter - (midnight - Date.now()) / 1000)).toBeLessThanOrEqual(60);
    expect(fake.callCount).toBe(2);
    const { rows } = await getPool().query('SELECT cost_today::text, remaining_units FROM api_keys WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ cost_today: '2.4000000000', remaining_units: 996 });
  });

  it('just below the budget the request is served; a new UTC day starts from zero', async () => {
    const { key, id } = await keyFor('model-x', { prices, budget: 2.4000000001 });
    for (const input of ['a', 'b', 'c']) expect((await call(api, TEXT, { input }, { key })).status).toBe(200);
    expectEnvelope(await call(api, TEXT, { input: 'd' }, { key }), 429, 'rate_limited');
    await getPool().query(`UPDATE api_keys SET cost_day = cost_day - 1 WHERE id = $1`, [id]);
    clearKeyCache();
    expect((await call(api, TEXT, { input: 'e' }, { key })).status).toBe(200);
    const { rows } = await getPool().query('SELECT cost_today::text FROM api_keys WHERE id = $1', [id]);
    expect(rows[0].cost_today).toBe('1.2000000000');
  });

  it('concurrent requests past the budget are all refused, none reaches the provider', async () => {
    const { key } = await keyFor('model-x', { prices, budget: 1.2 });
    expect((await call(api, TEXT, { input: 'a' }, { key })).status).toBe(200);
    const results = await Promise.all(['b', 'c', 'd'].map((input) => call(api, TEXT, { input }, { key })));
    for (const result of results) expectEnvelope(result, 429, 'rate_limited');
    expect(fake.callCount).toBe(1);
  });
});
