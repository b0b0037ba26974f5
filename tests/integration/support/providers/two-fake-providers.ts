import { afterAll, beforeAll, beforeEach } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { forgetCircuitSnapshot } from '@/server/domain/providers/provider-circuit';
import { createTestKey } from '../../../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../fakes/fake-openai';

/** The variable the providers of twoFakeProviders' keys read their key from: the test file sets it. */
export const FALLBACK_KEY_ENV = 'WGS_PROVIDER_KEY_FALLBACK_KEY';

/**
 * Two fake OpenAI servers for an engine-list test file: started once, reset (and every circuit
 * forgotten) before each test. `keyFor` issues a text.generate key whose providers point at them
 * under fresh names, so no circuit of an earlier test is in the way.
 */
export function twoFakeProviders() {
  const fakes = {} as { first: FakeOpenAi; second: FakeOpenAi };
  beforeAll(async () => {
    [fakes.first, fakes.second] = await Promise.all([startFakeOpenAi(), startFakeOpenAi()]);
  });
  afterAll(async () => {
    await Promise.all([fakes.first.close(), fakes.second.close()]);
    await disconnectDb();
  });
  beforeEach(() => {
    fakes.first.reset();
    fakes.second.reset();
    forgetCircuitSnapshot();
  });

  let counter = 0;
  async function keyFor(engines: (names: { a: string; b: string }) => string | string[]) {
    counter++;
    const names = { a: `fa${counter}-${Date.now() % 100000}`, b: `fb${counter}-${Date.now() % 100000}` };
    const key = await createTestKey({
      quota: 100,
      providers: {
        [names.a]: { type: 'openai', base_url: fakes.first.baseUrl, api_key_env: FALLBACK_KEY_ENV },
        [names.b]: { type: 'openai', base_url: fakes.second.baseUrl, api_key_env: FALLBACK_KEY_ENV },
      },
      operations: { 'text.generate': { engine: engines(names), units: 3 } },
    });
    return { ...key, names };
  }
  return { fakes, keyFor };
}
