import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { createTestKey } from '../helpers/api';
import { freePort } from '@/server/db/free-port';
import { originAt, ownAddresses } from './support/product/addresses';
import {
  createDatabase,
  ensureBuild,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';
import { RedisServer } from './support/redis-server';

// Two real `npm start` instances on one database and one Redis (REDIS_URL), reached from this
// machine's non-loopback address: the address's failed authentications are one count for both,
// and a failure past it is a 429, so the limit holds exactly across instances, for failures sent
// at once too (outside audit: 100 at once split between two instances got 93-100 401s of 60),
// where two counts of their own let twice the limit through.

const LIMIT = 6; // AUTH_FAILURES_PER_MINUTE
let database: TestDatabase;
let redis: RedisServer;
let a: Product;
let b: Product;

beforeAll(async () => {
  ensureBuild();
  redis = new RedisServer(await freePort());
  await redis.start();
  database = await createDatabase('wgs_auth_shared');
  await useDatabaseInThisProcess(database.url);
  // A proxy on loopback is trusted: its X-Forwarded-For names clients of addresses of their own.
  const env = { HOST: '::', REDIS_URL: redis.url, AUTH_FAILURES_PER_MINUTE: String(LIMIT), LOG_FORMAT: 'off', TRUST_PROXY: '127.0.0.1' };
  a = await startProduct({ databaseUrl: database.url, env });
  b = await startProduct({ databaseUrl: database.url, env });
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await redis?.stop();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

const address = ownAddresses().ipv4;
const badKey = () => `wgs_live_${randomBytes(30).toString('base64url').slice(0, 40)}`;

async function readKey(product: Product, secret: string, from = address, forwardedFor?: string) {
  const response = await fetch(`${originAt(from, product.port)}/v1/key`, {
    headers: { authorization: `Bearer ${secret}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
    signal: AbortSignal.timeout(30_000),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { error?: { code: string } },
  };
}

describe('failed authentications with REDIS_URL, across two instances', () => {
  it('one count for both instances: exactly the limit of 401s from a burst sent to both at once, then 429 with Retry-After on either, even for a valid key; loopback is not counted', async () => {
    const key = await createTestKey({ quota: 10 });
    const answers = await Promise.all(Array.from({ length: 4 * LIMIT }, (_, i) => readKey(i % 2 === 0 ? a : b, badKey())));
    for (const answer of answers) {
      if (answer.status === 401) expect(answer.body.error?.code).toBe('invalid_api_key');
      else {
        expect(answer.status).toBe(429);
        expect(answer.body.error?.code).toBe('rate_limited');
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
      }
    }
    expect(answers.filter((answer) => answer.status === 401)).toHaveLength(LIMIT);
    for (const product of [a, b]) expect((await readKey(product, key.key)).status).toBe(429);
    for (const product of [a, b]) expect((await readKey(product, key.key, '127.0.0.1')).status).toBe(200);
  });

  it('an address past the count is refused by both instances, also by one that answered none of its failures (multi-instance audit: it served a valid key)', async () => {
    const key = await createTestKey({ quota: 10 });
    const client = '203.0.113.7'; // through the proxy on loopback
    for (let i = 0; i < LIMIT; i++) expect((await readKey(a, badKey(), '127.0.0.1', client)).status).toBe(401);
    expect((await readKey(a, key.key, '127.0.0.1', client)).status).toBe(429);
    await expect.poll(async () => (await readKey(b, key.key, '127.0.0.1', client)).status, { timeout: 3_000 }).toBe(429);
    expect((await readKey(b, key.key, '127.0.0.1', '203.0.113.8')).status).toBe(200);
  });

  it('with Redis down a failure is still a 401, and each instance still counts its own', async () => {
    const other = ownAddresses().ipv6;
    if (!other) throw new Error('this machine has no IPv6 address besides loopback: the second client needs one');
    await redis.stop();
    for (let i = 0; i < LIMIT; i++) expect((await readKey(a, badKey(), other)).status).toBe(401);
    expect((await readKey(a, badKey(), other)).status).toBe(429);
    expect((await readKey(b, badKey(), other)).status).toBe(401);
  });
});
