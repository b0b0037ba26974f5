import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { getConfig } from '../config';

// The optional Redis (REDIS_URL) that holds the requests-per-minute counts instead of
// PostgreSQL. A request waits for it at most a second (REDIS_WAIT_MS, reconnecting included),
// then is refused with 503 rather than let through uncounted; the client's own timeout is longer,
// so that the reply of a command that ran late is still read (a late point is given back).
// ioredis (a CommonJS package) is loaded on the first use, only when REDIS_URL is set: every
// process imports this module through the database client, and most never use Redis.
const loadPackage = createRequire(import.meta.url);

let client: Redis | undefined;

export function getRedis(): Redis | undefined {
  const url = getConfig().REDIS_URL;
  if (!url) return undefined;
  if (!client) {
    const { Redis: RedisClient } = loadPackage('ioredis') as typeof import('ioredis');
    const redis = new RedisClient(url, { maxRetriesPerRequest: 1, commandTimeout: 30_000, connectTimeout: 2_000 });
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

/** How long a request waits for a Redis command before it is refused (503). */
export const REDIS_WAIT_MS = 1_000;

/**
 * The command's reply, or a timeout error (isRedisUnavailable) after REDIS_WAIT_MS; then `ifLate`
 * gets the command, which Redis may still run (a stalled Redis runs what it was sent once it wakes).
 */
export function withinRedisWait<T>(command: Promise<T>, ifLate?: (late: Promise<T>) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`Command timed out: Redis did not answer within ${REDIS_WAIT_MS} ms`));
      ifLate?.(command);
    }, REDIS_WAIT_MS);
    command.then(
      (reply) => {
        clearTimeout(timer);
        resolve(reply);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Errors of a Redis that is down or unreachable. */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /Command timed out|Connection is closed|Stream isn't writeable|Reached the max retries per request limit/i.test(error.message)
  );
}
