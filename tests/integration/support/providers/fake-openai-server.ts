import { afterAll, beforeAll } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../fakes/fake-openai';

/**
 * The fake OpenAI server of a test file: started before its tests (then `env` is set, e.g. the
 * provider key its packages name), closed after them with this process's database pools. The
 * object returned stands for the server once it runs.
 */
export function withFakeOpenAi(env: Record<string, string> = {}): FakeOpenAi {
  let fake: FakeOpenAi | undefined;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    Object.assign(process.env, env);
  });
  afterAll(async () => {
    await fake?.close();
    await disconnectDb();
  });
  return new Proxy({} as FakeOpenAi, {
    get(_, property) {
      if (!fake) throw new Error('the fake OpenAI server runs only inside the tests (after beforeAll)');
      const value: unknown = Reflect.get(fake, property);
      return typeof value === 'function' ? value.bind(fake) : value;
    },
  });
}
