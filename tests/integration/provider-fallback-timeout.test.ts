import { describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool } from '@/server/db/client';
import { api, call, remainingUnits } from '../helpers/api';
import { FALLBACK_KEY_ENV, twoFakeProviders } from './support/providers/two-fake-providers';

// A provider that does not answer in time, first in an engine list: the next engine is called
// after one attempt, not after PROVIDER_MAX_RETRIES more (each PROVIDER_TIMEOUT_MS long), which
// could spend the request's whole time before the fallback; a sole engine is still retried.

process.env.PROVIDER_MAX_RETRIES = '2';
process.env.PROVIDER_TIMEOUT_MS = '600';
process.env[FALLBACK_KEY_ENV] = 'sk-fallback-test';
process.env.PROVIDER_CIRCUIT_FAILURES = '1000';
resetConfigForTests();

const { fakes, keyFor } = twoFakeProviders();

describe('a first engine that does not answer in time', () => {
  it('is called once, then the next engine answers; charged once, the usage event names both', async () => {
    const { key, id, names } = await keyFor(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'hang' });
    const answer = await call(api, '/v1/text/generate', { input: 'one' }, { key });
    expect(answer.status, answer.text).toBe(200);
    expect(fakes.first.callCount).toBe(1);
    expect(fakes.second.callCount).toBe(1);
    const { rows } = await getPool().query<{ engine: string; engines_tried: string[] }>(
      'SELECT engine, engines_tried FROM usage_events WHERE api_key_id = $1',
      [id],
    );
    expect(rows).toEqual([{ engine: `${names.b}:model-b`, engines_tried: [`${names.a}:model-a`, `${names.b}:model-b`] }]);
    expect(await remainingUnits(id)).toBe(97);
  });

  it('alone in its list, it is tried again up to PROVIDER_MAX_RETRIES times before the 503', async () => {
    const { key, id } = await keyFor(({ a }) => `${a}:model-a`);
    fakes.first.setMode({ kind: 'hang' });
    const answer = await call(api, '/v1/text/generate', { input: 'two' }, { key });
    expect(answer.status).toBe(503);
    expect(fakes.first.callCount).toBe(3);
    expect(await remainingUnits(id)).toBe(100);
  });
});
