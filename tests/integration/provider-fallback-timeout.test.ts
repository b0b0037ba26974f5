import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool } from '@/server/db/client';
import { forgetCircuitSnapshot } from '@/server/domain/providers/provider-circuit';
import { api, call, createTestKey, remainingUnits } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';

// A provider that does not answer in time, first in an engine list: the next engine is called
// after one attempt, not after PROVIDER_MAX_RETRIES more (each PROVIDER_TIMEOUT_MS long), which
// could spend the request's whole time before the fallback; a sole engine is still retried.

process.env.PROVIDER_MAX_RETRIES = '2';
process.env.PROVIDER_TIMEOUT_MS = '600';
process.env.WGS_PROVIDER_KEY_TIMEOUT_KEY = 'sk-timeout-test';
process.env.PROVIDER_CIRCUIT_FAILURES = '1000';
resetConfigForTests();

let first: FakeOpenAi;
let second: FakeOpenAi;
beforeAll(async () => {
  [first, second] = await Promise.all([startFakeOpenAi(), startFakeOpenAi()]);
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
  await disconnectDb();
});
beforeEach(() => {
  first.reset();
  second.reset();
  forgetCircuitSnapshot();
});

let counter = 0;
async function keyFor(engines: (names: { a: string; b: string }) => string | string[]) {
  counter++;
  const names = { a: `ta${counter}-${Date.now() % 100000}`, b: `tb${counter}-${Date.now() % 100000}` };
  const key = await createTestKey({
    quota: 100,
    providers: {
      [names.a]: { type: 'openai', base_url: first.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_TIMEOUT_KEY' },
      [names.b]: { type: 'openai', base_url: second.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_TIMEOUT_KEY' },
    },
    operations: { 'text.generate': { engine: engines(names), units: 3 } },
  });
  return { ...key, names };
}

describe('a first engine that does not answer in time', () => {
  it('is called once, then the next engine answers; charged once, the usage event names both', async () => {
    const { key, id, names } = await keyFor(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    first.setMode({ kind: 'hang' });
    const answer = await call(api, '/v1/text/generate', { input: 'one' }, { key });
    expect(answer.status, answer.text).toBe(200);
    expect(first.callCount).toBe(1);
    expect(second.callCount).toBe(1);
    const { rows } = await getPool().query<{ engine: string; engines_tried: string[] }>(
      'SELECT engine, engines_tried FROM usage_events WHERE api_key_id = $1',
      [id],
    );
    expect(rows).toEqual([{ engine: `${names.b}:model-b`, engines_tried: [`${names.a}:model-a`, `${names.b}:model-b`] }]);
    expect(await remainingUnits(id)).toBe(97);
  });

  it('alone in its list, it is tried again up to PROVIDER_MAX_RETRIES times before the 503', async () => {
    const { key, id } = await keyFor(({ a }) => `${a}:model-a`);
    first.setMode({ kind: 'hang' });
    const answer = await call(api, '/v1/text/generate', { input: 'two' }, { key });
    expect(answer.status).toBe(503);
    expect(first.callCount).toBe(3);
    expect(await remainingUnits(id)).toBe(100);
  });
});
