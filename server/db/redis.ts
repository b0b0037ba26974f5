import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { getConfig } from '../config';

// The optional Redis (REDIS_URL) that holds the requests-per-minute counts instead of
// PostgreSQL. A command waits at most a second (reconnecting included), then fails: the
// request is refused with 503 rather than let through uncounted.
// ioredis (a CommonJS package) is loaded on the first use, only when REDIS_URL is set: every
// process imports this module through the database client, and most never use Redis.
const loadPackage = createRequire(import.meta.url);

let client: Redis | undefined;

export function getRedis(): Redis | undefined {
  const url = getConfig().REDIS_URL;
  if (!url) return undefined;
  if (!client) {
    const { Redis: RedisClient } = loadPackage('ioredis') as typeof import('ioredis');
    const redis = new RedisClient(url, { maxRetriesPerRequest: 1, commandTimeout: 1_000, connectTimeout: 2_000 });
    redis.on('error', () => {}); // reconnects by itself; commands meanwhile fail (503)
    client = redis;
  }
  return client;
}

export async function disconnectRedis(): Promise<void> {
  const redis = client;
  client = undefined;
  if (redis) await redis.quit().catch(() => redis.disconnect());
}

/** Errors of a Redis that is down or unreachable. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /Command timed out|Connection is closed|Stream isn't writeable|Reached the max retries per request limit/i.test(error.message)
  );
}
