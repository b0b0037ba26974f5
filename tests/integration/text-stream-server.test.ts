import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import {
  books,
  createDatabase,
  ensureBuild,
  killAllProducts,
  newKey,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// A streamed answer through the real server (npm start's scripts/start.mjs, Next, its compression): each event
// reaches the client while the provider is still generating (nothing buffers it, gzip asked or
// not), and a client that hangs up after a delta is charged once, the provider read to its end.

let database: TestDatabase;
let product: Product;
let fake: FakeOpenAi;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_stream');
  await useDatabaseInThisProcess(database.url);
  fake = await startFakeOpenAi();
  product = await startProduct({ databaseUrl: database.url, env: { WGS_PROVIDER_KEY_FAKE_STREAM_KEY: 'sk-fake-stream' } });
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

const streamKey = () =>
  createTestKey({
    quota: 10,
    providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_STREAM_KEY' } },
    operations: { 'text.generate': { engine: 'fake:model-s', units: 2 } },
  });

describe('a stream through the real server', () => {
  for (const encoding of ['gzip, deflate, br', 'identity']) {
    it(`passes each event on at once (Accept-Encoding: ${encoding}); a hang-up after a delta is charged once`, async () => {
      const { key, id } = await streamKey();
      fake.reset();
      fake.setReply('first second third fourth');
      fake.setMode({ kind: 'stall', after: 2 }); // two words, then the provider waits
      const abort = new AbortController();
      const response = await fetch(`${product.base}/v1/text/generate`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'idempotency-key': newKey('stream'),
          accept: 'text/event-stream',
          'accept-encoding': encoding,
        },
        body: JSON.stringify({ input: 'stream through the server' }),
        signal: abort.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // Both deltas arrive although the answer is far from complete: nothing held them back.
      while ((text.match(/^event: delta$/gm) ?? []).length < 2) {
        const { done, value } = await reader.read();
        expect(done, text).toBe(false);
        text += decoder.decode(value, { stream: true });
      }
      expect(text).toContain('data: {"text":"first "}');
      expect(text).toContain('data: {"text":"second "}');
      expect(await books(database.url, id)).toMatchObject({ remaining: 8, held: 1 });

      // The client hangs up after two deltas: the server reads the provider to its end and charges the call.
      abort.abort();
      fake.resume();
      await expect.poll(() => fake.streamsFinished, { timeout: 20_000 }).toBe(1);
      expect(fake.streamsAbandoned).toBe(0);
      await expect.poll(() => books(database.url, id), { timeout: 20_000 }).toMatchObject({ remaining: 8, held: 0, captured: 1 });
    });
  }
});
