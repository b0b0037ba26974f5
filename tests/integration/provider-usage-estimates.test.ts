import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool } from '@/server/db/client';
import { api, call, createTestKey } from '../helpers/api';
import { openStream } from '../helpers/event-stream';
import { operatorCaller } from './trpc/helpers';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Budgets see every call: a stream asks its provider for usage (openai-compatible's
// `stream_options.include_usage`), and a provider that reports none has the call's usage
// estimated from what was asked and answered (4 characters to a token), its cost counted in the
// key's day and marked estimated on the usage event and in the margin report (and its tRPC output).

process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();
const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_ESTIMATES_KEY: 'sk-fake-estimates' });
beforeEach(() => fake.reset());
afterAll(() => fake.reset());

const PRICES = { input_per_mtok: 1000, output_per_mtok: 2000 };
const REPLY = 'An answer of exactly forty-four characters..';

/** A key whose text and code go to an `openai-compatible` fake with the operator's prices; its own provider name (engines are cached). */
let providers = 0;
const compatibleKey = () => {
  const name = `compat${++providers}`;
  return createTestKey({
    quota: 100,
    unitPrice: 0.01,
    providers: {
      [name]: {
        type: 'openai-compatible',
        base_url: fake.baseUrl,
        api_key_env: 'WGS_PROVIDER_KEY_FAKE_ESTIMATES_KEY',
        prices: { m: PRICES },
      },
    },
    operations: { 'text.generate': { engine: `${name}:m`, units: 2 }, 'code.generate': { engine: `${name}:m`, units: 2 } },
  });
};

interface Used {
  input_tokens: number | null;
  output_tokens: number | null;
  provider_cost: string | null;
  unpriced: boolean;
  usage_estimated: boolean;
}

const used = async (apiKeyId: string): Promise<Used[]> =>
  (
    await getPool().query<Used>(
      `SELECT input_tokens, output_tokens, provider_cost::float8::text AS provider_cost, unpriced, usage_estimated
         FROM usage_events WHERE api_key_id = $1 ORDER BY created_at`,
      [apiKeyId],
    )
  ).rows;

const costToday = async (apiKeyId: string) =>
  (await getPool().query<{ cost: string }>('SELECT cost_today::float8::text AS cost FROM api_keys WHERE id = $1', [apiKeyId])).rows[0]!
    .cost;

const priced = (input: number, output: number) => (input * PRICES.input_per_mtok + output * PRICES.output_per_mtok) / 1e6;

describe('a stream asks its provider for usage', () => {
  it("openai-compatible: stream_options.include_usage, and the provider's own figure recorded", async () => {
    const { key, id } = await compatibleKey();
    fake.setReply(REPLY);
    const events = await (await openStream(key, { input: 'Count my tokens' })).rest();
    expect(events.at(-1)!.event).toBe('done');
    expect((fake.calls[0]!.body as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    const words = REPLY.split(' ').length;
    expect(await used(id)).toEqual([
      { input_tokens: 5, output_tokens: words, provider_cost: String(priced(5, words)), unpriced: false, usage_estimated: false },
    ]);
  });
});

describe('a provider that reports no usage', () => {
  it('streamed text, JSON text and code: tokens estimated from the text, priced, counted in the day, marked estimated', async () => {
    const { key, id } = await compatibleKey();
    fake.setReportsUsage(false);
    fake.setReply(REPLY);
    const input = 'Estimate me, please'; // 19 characters: 5 tokens
    expect((await (await openStream(key, { input })).rest()).at(-1)!.event).toBe('done');
    expect((await call(api, '/v1/text/generate', { input }, { key })).status).toBe(200);
    fake.setReply(undefined); // the fake's code answer (JSON)
    const code = await call(api, '/v1/code/generate', { input: 'a constant' }, { key }); // 10 characters: 3 tokens
    expect(code.status, code.text).toBe(200);

    const answer = Math.ceil(REPLY.length / 4); // 11 tokens
    const codeOut = Math.ceil((code.json.output.code.length + code.json.output.explanation.length) / 4);
    const expected = [
      { input_tokens: 5, output_tokens: answer, provider_cost: String(priced(5, answer)), unpriced: false, usage_estimated: true },
      { input_tokens: 5, output_tokens: answer, provider_cost: String(priced(5, answer)), unpriced: false, usage_estimated: true },
      { input_tokens: 3, output_tokens: codeOut, provider_cost: String(priced(3, codeOut)), unpriced: false, usage_estimated: true },
    ];
    expect(await used(id)).toEqual(expected);
    const total = 2 * priced(5, answer) + priced(3, codeOut);
    expect(Number(await costToday(id))).toBeCloseTo(total, 10);

    // The margin report (and the dashboard's tRPC output) shows the estimated part apart.
    await operatorCaller(); // the first operator is an owner
    const { caller } = await operatorCaller('viewer');
    const report = await caller.margin.report({ range: '24h', key: id });
    expect(report.totals).toMatchObject({ requests: 3, estimated: 3, unpriced: 0 });
    expect(Number(report.totals.estimated_cost)).toBeCloseTo(total, 10);
    expect(Number(report.totals.cost)).toBeCloseTo(total, 10);
    expect(report.by_operation.map((row) => [row.operation, row.estimated])).toEqual([
      ['code.generate', 1],
      ['text.generate', 2],
    ]);
    const keys = await caller.margin.keys({ range: '24h', limit: 200 });
    expect(keys.find((row) => row.id === id)).toMatchObject({ estimated: 3 });
  });
});

describe('a provider that failed after it began its answer', () => {
  it("records the prompt's tokens, estimated; one that failed before answering records none", async () => {
    const { key, id } = await compatibleKey();
    const input = 'Estimate me, please'; // 19 characters: 5 tokens
    fake.setMode({ kind: 'garbage' }); // 200, then a body that is no JSON
    expect((await call(api, '/v1/text/generate', { input }, { key })).status).toBe(503);
    expect((await call(api, '/v1/code/generate', { input: 'a constant' }, { key })).status).toBe(503); // 3 tokens
    fake.setMode({ kind: 'break', after: 0, pauseMs: 50 }); // a stream's 200 headers and a chunk of no text, then the connection dropped
    expect((await (await openStream(key, { input })).rest()).at(-1)!.event).toBe('error');
    fake.setMode({ kind: 'stream-error', after: 0 }); // a stream's 200, then an error event in it
    expect((await (await openStream(key, { input })).rest()).at(-1)!.event).toBe('error');
    fake.setMode({ kind: 'truncate', pauseMs: 50 }); // a JSON answer's 200 and half its body, then the connection dropped (engines audit)
    expect((await call(api, '/v1/text/generate', { input }, { key })).status).toBe(503);
    fake.setMode({ kind: 'status', status: 500 }); // no answer begun
    expect((await call(api, '/v1/text/generate', { input }, { key })).status).toBe(503);

    const prompt = (tokens: number) => ({
      input_tokens: tokens,
      output_tokens: 0,
      provider_cost: String(priced(tokens, 0)),
      unpriced: false,
      usage_estimated: true,
    });
    const none = { input_tokens: null, output_tokens: null, provider_cost: null, unpriced: false, usage_estimated: false };
    expect(await used(id)).toEqual([prompt(5), prompt(3), prompt(5), prompt(5), prompt(5), none]);
    expect(Number(await costToday(id))).toBeCloseTo(4 * priced(5, 0) + priced(3, 0), 10);
  });
});
