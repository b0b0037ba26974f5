import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import { windowStore, type WindowHit } from './sliding-window';

// Requests per minute per key: a sliding window of 60 s (sliding-window.ts) in Redis when
// REDIS_URL is set, else in PostgreSQL, so every instance shares one count.

export interface RateState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const WINDOW_SECONDS = 60;

const windowKey = (apiKeyId: string) => `rpm:${apiKeyId}`;

/** The window a key's requests per minute are counted in: its store key, limit and span. */
export interface RateWindow {
  key: string;
  limit: number;
  windowSeconds: number;
}

export function rateWindowOf(apiKeyId: string, perMinute: number): RateWindow {
  return { key: windowKey(apiKeyId), limit: perMinute, windowSeconds: WINDOW_SECONDS };
}

/**
 * The minute's count in both forms of draft-ietf-httpapi-ratelimit-headers: the structured
 * `RateLimit-Policy` and `RateLimit` fields of its current revisions, and the separate
 * `RateLimit-Limit`, `-Remaining` and `-Reset` fields of its earlier ones, which clients still read.
 * With a sliding window, the reset is when the oldest counted request leaves the window.
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

/**
 * The wait a response names, in whole seconds: the store's exact wait rounded up, at least 1 s
 * (Retry-After: 0 invites an immediate retry) and never more than the window (a clock that
 * stepped back cannot make a client wait longer than the limit's own span).
 */
export function waitSeconds(waitMs: number, windowSeconds: number): number {
  return Math.min(windowSeconds, Math.max(1, Math.ceil(waitMs / 1000)));
}

/** Counts one request of the key, or throws 429 (nothing counted) when its last 60 s hold the limit. */
export async function consumeRequest(db: SqlDb, apiKeyId: string, perMinute: number, nowMs?: number): Promise<RateState> {
  const hit = await windowStore(db).take(windowKey(apiKeyId), perMinute, WINDOW_SECONDS, nowMs);
  return rateStateOf(hit, perMinute);
}

/**
 * The minute's state after a hit the store judged (here, or inside a billing statement that took
 * the point with the claim); throws the 429, with its headers and exact Retry-After, when refused.
 */
export function rateStateOf(hit: WindowHit, perMinute: number): RateState {
  const resetSeconds = waitSeconds(hit.waitMs, WINDOW_SECONDS);
  if (hit.allowed) return { limit: perMinute, remaining: Math.max(0, perMinute - hit.used), resetSeconds };
  const state = { limit: perMinute, remaining: 0, resetSeconds };
  throw new ApiError('rate_limited', {
    message: `Rate limit of ${perMinute} requests per minute reached. Retry later.`,
    retryAfter: state.resetSeconds,
    headers: rateLimitHeaders(state),
  });
}

/**
 * Gives back the point of a request that turned out to be another request's (an idempotent
 * replay or conflict). Best effort: a point not given back only makes this minute stricter.
 */
export async function refundRequest(db: SqlDb, apiKeyId: string): Promise<void> {
  await windowStore(db)
    .giveBack(windowKey(apiKeyId))
    .catch(() => {});
}
