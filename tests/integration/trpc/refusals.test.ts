import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { disconnectDb, getPool } from '@/server/db/client';
import { countRefusal, flushRefusals } from '@/server/observability/refusal-counter';
import { getObjectStore } from '@/server/storage/get-object-store';
import { api, call, createTestKey } from '../../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../../fakes/fake-openai';
import { expectTrpcError, operatorCaller, usage } from './helpers';

// After a scripted mix of successes, failures and refusals the overview counts each class
// exactly (as differences: other files share the database), a key's page its refusals by code,
// and the keys list sorts by refusals.

const TEXT = '/v1/text/generate';
let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.setMode({ kind: 'status', status: 400 });
  process.env.WGS_PROVIDER_KEY_FAKE_REFUSALS_KEY = 'sk-fake-refusals';
  await flushRefusals(getPool());
});
afterAll(async () => {
  await fake.close();
  await disconnectDb();
});

describe('succeeded, failed and refused traffic', () => {
  it("the overview, a key's refusals by code and the keys by refusals count the scripted mix exactly", async () => {
    const { caller } = await operatorCaller();
    const before = await caller.refusals.overview({ range: '24h' });
    const a = await createTestKey({ quota: 3 });
    const b = await createTestKey({ rpm: 1 });
    const c = await createTestKey({
      providers: { fakerefusals: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_REFUSALS_KEY' } },
      operations: { 'text.generate': { engine: 'fakerefusals:model-x', units: 1 } },
    });
    const statuses: number[] = [];
    const send = async (key: string, input = 'hi') => statuses.push((await call(api, TEXT, { input }, { key })).status);
    for (let i = 0; i < 3; i++) await send(a.key);
    for (let i = 0; i < 2; i++) await send(a.key);
    for (let i = 0; i < 3; i++) await send(a.key, '');
    for (let i = 0; i < 5; i++) await send(b.key);
    for (let i = 0; i < 2; i++) await send(c.key);
    for (let i = 0; i < 2; i++) await send('wgs_live_nobody');
    expect(statuses).toEqual([200, 200, 200, 402, 402, 422, 422, 422, 200, 429, 429, 429, 429, 503, 503, 401, 401]);
    countRefusal(a.id, 'text.generate', 500, 'internal_error'); // a server failure before any engine
    await usage(c.id, 'failed', 0, 'text.generate', 'client_disconnected'); // left by its client: not the provider's failure
    await flushRefusals(getPool());

    const after = await caller.refusals.overview({ range: '24h' });
    const delta = (pick: (o: typeof after) => number) => pick(after) - pick(before);
    expect(delta((o) => o.totals.succeeded)).toBe(4);
    expect(delta((o) => o.totals.failed_provider)).toBe(2);
    expect(delta((o) => o.totals.failed_server)).toBe(1);
    expect(delta((o) => o.totals.left_by_client)).toBe(1); // an operations audit: it was counted as the provider's failure
    expect(delta((o) => o.totals.refused)).toBe(11);
    expect(delta((o) => o.totals.requests)).toBe(19);
    expect(delta((o) => o.totals.units)).toBe(4);
    expect(after.range.bucket).toBe('hour');
    expect(after.buckets).toHaveLength(24);
    const sumBuckets = (o: typeof after) => o.buckets.reduce((sum, row) => sum + row.succeeded + row.failed + row.left + row.refused, 0);
    expect(sumBuckets(after)).toBe(after.totals.requests);
    const code = (o: typeof after, status: number, name: string) =>
      o.refused_by_code.find((r) => r.status === status && r.code === name)?.count ?? 0;
    for (const [status, name, count] of [
      [402, 'quota_exhausted', 2],
      [422, 'validation_error', 3],
      [429, 'rate_limited', 4],
      [401, 'invalid_api_key', 2],
    ] as const) {
      expect(code(after, status, name) - code(before, status, name)).toBe(count);
    }
    const failed = (o: typeof after) => o.failed_by_operation.find((r) => r.operation === 'text.generate') ?? { provider: 0, server: 0 };
    expect(failed(after).provider - failed(before).provider).toBe(2);
    expect(failed(after).server - failed(before).server).toBe(1);

    expect(await caller.refusals.byKey({ id: a.id, range: '7d' })).toEqual({
      label: 'the last 7 days',
      total: 5,
      by_code: [
        { status: 422, code: 'validation_error', count: 3 },
        { status: 402, code: 'quota_exhausted', count: 2 },
      ],
    });
    expect((await caller.refusals.byKey({ id: c.id })).total).toBe(0);

    const ranked = await caller.refusals.keys({ range: '24h', limit: 200 });
    const position = (id: string) => ranked.findIndex((row) => row.id === id);
    expect(ranked[position(a.id)]).toMatchObject({ refused: 5, prefix: a.key.slice(0, 13) });
    expect(ranked[position(b.id)]!.refused).toBe(4);
    expect(position(a.id)).toBeLessThan(position(b.id));
    expect(position(c.id)).toBe(-1);
  });

  it("counts a call the engine answered but the service failed (its output not stored) as the server's failure, not the provider's", async () => {
    const { caller } = await operatorCaller();
    const before = await caller.refusals.overview({ range: '24h' });
    const key = await createTestKey({ operations: { 'images.generate': { engine: 'local', units: 1 } } });
    const put = vi.spyOn(getObjectStore(), 'put').mockRejectedValue(new Error('the store is away'));
    try {
      expect((await call(api, '/v1/images/generate', { prompt: 'p' }, { key: key.key })).status).toBe(500);
    } finally {
      put.mockRestore();
    }
    await flushRefusals(getPool()); // a call with a usage event is not in the refusals' rollup as well
    const after = await caller.refusals.overview({ range: '24h' });
    const delta = (pick: (o: typeof after) => number) => pick(after) - pick(before);
    expect([delta((o) => o.totals.failed_server), delta((o) => o.totals.failed_provider)]).toEqual([1, 0]);
    const images = (o: typeof after) => o.failed_by_operation.find((r) => r.operation === 'images.generate') ?? { provider: 0, server: 0 };
    expect([images(after).server - images(before).server, images(after).provider - images(before).provider]).toEqual([1, 0]);
  });

  it('takes a custom range of whole UTC days and refuses a malformed one', async () => {
    const { caller } = await operatorCaller();
    const overview = await caller.refusals.overview({ range: 'custom', from: '2026-01-01', to: '2026-01-30' });
    expect(overview.range).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-31T00:00:00.000Z', bucket: 'day' });
    expect(overview.buckets).toHaveLength(30);
    await expectTrpcError(
      caller.refusals.overview({ range: 'custom', from: '2026-02-01', to: '2026-01-01' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await expectTrpcError(caller.refusals.overview({ range: 'custom' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
  });
});
