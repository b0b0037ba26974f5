import { RateLimiterPostgres, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { SqlDb } from '../../db/client';
import { getRedis } from '../../db/redis';
import { ApiError } from '../errors';

// Requests per minute per key, counted by rate-limiter-flexible in Redis when REDIS_URL is
// set, else in PostgreSQL, so every instance shares one count. One limiter per distinct limit
// (packages differ), built on the handle of the first request that needs it.

export interface RateState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const limiters = new Map<number, RateLimiterAbstract>();

function limiterFor(db: SqlDb, perMinute: number): RateLimiterAbstract {
  let limiter = limiters.get(perMinute);
  if (!limiter) {
    const common = { keyPrefix: `rpm${perMinute}`, points: perMinute, duration: 60 };
    const redis = getRedis();
    limiter = redis
      ? new RateLimiterRedis({ ...common, storeClient: redis })
      : new RateLimiterPostgres({
          ...common,
          storeClient: db.provisional,
          storeType: 'pool',
          tableName: 'rate_limits',
          tableCreated: true,
        });
    limiters.set(perMinute, limiter);
  }
  return limiter;
}

/**
 * The minute's count in both forms of draft-ietf-httpapi-ratelimit-headers: the structured
 * `RateLimit-Policy` and `RateLimit` fields of its current revisions, and the separate
 * `RateLimit-Limit`, `-Remaining` and `-Reset` fields of its earlier ones, which clients still read.
 */
export function rateLimitHeaders(state: RateState): Record<string, string> {
  return {
    'RateLimit-Policy': `"minute";q=${state.limit};w=60`,
    RateLimit: `"minute";r=${state.remaining};t=${state.resetSeconds}`,
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.resetSeconds),
  };
}

export async function consumeRequest(db: SqlDb, apiKeyId: string, perMinute: number): Promise<RateState> {
  try {
    const result = await limiterFor(db, perMinute).consume(apiKeyId);
    return { limit: perMinute, remaining: result.remainingPoints, resetSeconds: Math.ceil(result.msBeforeNext / 1000) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection; // the store failed: not a limit
    const state = { limit: perMinute, remaining: 0, resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    throw new ApiError('rate_limited', {
      message: `Rate limit of ${perMinute} requests per minute reached. Retry later.`,
      retryAfter: state.resetSeconds,
      headers: rateLimitHeaders(state),
    });
  }
}

/**
 * Gives back the point of a request that turned out to be another request's (an idempotent
 * replay or conflict). Best effort: a point not given back only makes this minute stricter.
 */
export async function refundRequest(db: SqlDb, apiKeyId: string, perMinute: number): Promise<void> {
  await limiterFor(db, perMinute)
    .reward(apiKeyId, 1)
    .catch(() => {});
}
