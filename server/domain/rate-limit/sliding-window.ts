import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { SqlDb } from '../../db/client';
import { getRedis, withinRedisWait } from '../../db/redis';

// A sliding window shared by every instance: per key, the hits of the last `window` seconds in
// one-second buckets, in Redis (REDIS_URL) or in PostgreSQL (rate_windows, through the SQL
// functions of its migration). A hit is taken when the buckets of the window's seconds and of
// the window hold fewer than the limit, so no span of `window` seconds ever holds more than the
// limit, not even across a window's edge (a fixed window lets up to twice the limit through
// there). Each bucket keeps the time of its latest hit and leaves the window exactly `window`
// seconds after it: a hit counts for `window` to `window` + 1 s, and the wait a refusal names
// is the exact time until enough buckets have left, never more than the window. The state per
// key is at most window + 1 buckets, whatever the limit. One clock for all instances: the store's
// own (PostgreSQL's clock_timestamp(), Redis's TIME); tests pass `nowMs` instead.

export interface WindowHit {
  /** The hit was taken (false: the window is full; nothing was counted). */
  allowed: boolean;
  /** Hits in the window, this one included when taken. */
  used: number;
  /** Until the oldest bucket leaves the window; when refused, until enough have left for one more (at most the window). */
  waitMs: number;
}

export interface WindowStore {
  /**
   * `keepLate`: a hit Redis takes after the caller stopped waiting stays (a failed authentication,
   * answered 401 either way); else it is given back (the request was refused for want of an answer).
   */
  take(key: string, limit: number, windowSeconds: number, nowMs?: number, options?: { keepLate?: boolean }): Promise<WindowHit>;
  /** Gives back the newest hit of the key. */
  giveBack(key: string): Promise<void>;
}

export function postgresWindowStore(pool: pg.Pool): WindowStore {
  return {
    async take(key, limit, windowSeconds, nowMs) {
      const { rows } = await pool.query<{ allowed: boolean; used: number; wait_ms: string }>(
        prepared(
          'wgs-rate-take',
          sql`SELECT allowed, used, wait_ms FROM wgs_rate_take(${key}, ${limit}, ${windowSeconds}, ${nowMs ?? null})`,
        ),
      );
      const row = rows[0]!;
      return { allowed: row.allowed, used: row.used, waitMs: Number(row.wait_ms) };
    },
    async giveBack(key) {
      await pool.query(prepared('wgs-rate-give-back', sql`SELECT wgs_rate_give_back(${key})`));
    },
  };
}

// The same algorithm as wgs_rate_take, on a hash of second -> count (KEYS[1]) and one of
// second -> latest hit in epoch ms (KEYS[2]; a bucket without one, written before it existed,
// counts as if its latest hit came at the end of its second), in one script (atomic).
const TAKE_SCRIPT = `
local key, latest_key = KEYS[1], KEYS[2]
local limit = tonumber(ARGV[1])
local window_ms = tonumber(ARGV[2]) * 1000
local now_ms = tonumber(ARGV[3])
if now_ms < 0 then
  local t = redis.call('TIME')
  now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local cur = math.floor(now_ms / 1000)
local flat = redis.call('HGETALL', key)
local secs, counts, latest, total = {}, {}, {}, 0
for i = 1, #flat, 2 do
  local s, c = tonumber(flat[i]), tonumber(flat[i + 1])
  local last = tonumber(redis.call('HGET', latest_key, flat[i])) or (s * 1000 + 999)
  if c <= 0 or last + window_ms <= now_ms then
    redis.call('HDEL', key, flat[i])
    redis.call('HDEL', latest_key, flat[i])
  else
    table.insert(secs, s)
    counts[s] = c
    latest[s] = last
    total = total + c
  end
end
table.sort(secs)
local allowed, wait = 0, 0
if total < limit then
  allowed = 1
  local bucket = cur
  if #secs > 0 and secs[#secs] >= cur then bucket = secs[#secs] end
  redis.call('HINCRBY', key, string.format('%d', bucket), 1)
  if counts[bucket] == nil then
    table.insert(secs, bucket)
    counts[bucket] = 0
    latest[bucket] = now_ms
  end
  latest[bucket] = math.max(latest[bucket], now_ms)
  redis.call('HSET', latest_key, string.format('%d', bucket), string.format('%d', latest[bucket]))
  total = total + 1
  wait = latest[secs[1]] + window_ms - now_ms
else
  local freed, i = 0, 0
  repeat
    i = i + 1
    freed = freed + counts[secs[i]]
  until total - freed < limit or i >= #secs
  wait = latest[secs[i]] + window_ms - now_ms
end
local newest = cur
if #secs > 0 and secs[#secs] > cur then newest = secs[#secs] end
local ttl = (newest + 1) * 1000 + window_ms + 1000 - now_ms
redis.call('PEXPIRE', key, ttl)
redis.call('PEXPIRE', latest_key, ttl)
return {allowed, total, wait}
`;

const GIVE_BACK_SCRIPT = `
local flat = redis.call('HGETALL', KEYS[1])
local best = nil
for i = 1, #flat, 2 do
  local s = tonumber(flat[i])
  if tonumber(flat[i + 1]) > 0 and (best == nil or s > tonumber(best)) then best = flat[i] end
end
if best then redis.call('HINCRBY', KEYS[1], best, -1) end
return 0
`;

type WindowRedis = Redis & {
  wgsRateTake(key: string, latestKey: string, limit: number, window: number, nowMs: number): Promise<[number, number, number]>;
  wgsRateGiveBack(key: string): Promise<number>;
};

export function redisWindowStore(redis: Redis): WindowStore {
  const client = redis as WindowRedis;
  if (!('wgsRateTake' in client)) {
    redis.defineCommand('wgsRateTake', { numberOfKeys: 2, lua: TAKE_SCRIPT });
    redis.defineCommand('wgsRateGiveBack', { numberOfKeys: 1, lua: GIVE_BACK_SCRIPT });
  }
  const giveBack = (key: string) => withinRedisWait(client.wgsRateGiveBack(key)).then(() => undefined);
  return {
    async take(key, limit, windowSeconds, nowMs, options) {
      const command = client.wgsRateTake(key, `${key}:latest`, limit, windowSeconds, nowMs ?? -1);
      // Refused for want of an answer, the request counts nothing: a hit Redis takes late is given back (Redis audit).
      const ifLate = (late: typeof command) =>
        void late.then(([allowed]) => (allowed === 1 ? client.wgsRateGiveBack(key) : undefined)).catch(() => {});
      const [allowed, used, waitMs] = await withinRedisWait(command, options?.keepLate ? undefined : ifLate);
      return { allowed: allowed === 1, used, waitMs };
    },
    giveBack,
  };
}

/**
 * Whether the windows are PostgreSQL's (no REDIS_URL): then a paid request's point can be taken by
 * the statement that claims its key and holds its units (billing/reserve-statements.ts).
 */
export function windowsInDatabase(): boolean {
  return getRedis() === undefined;
}

/** Redis when REDIS_URL is set, else PostgreSQL on the provisional pool (a crash may forget its last moment's hits). */
export function windowStore(db: SqlDb): WindowStore {
  const redis = getRedis();
  return redis ? redisWindowStore(redis) : postgresWindowStore(db.provisional);
}

/** Deletes PostgreSQL windows whose every hit has left (keys not seen for a minute), a batch at a time. */
export async function deleteIdleRateWindows(db: SqlDb, batch = 1000): Promise<number> {
  const { rowCount } = await db.pool.query(
    prepared(
      'wgs-rate-windows-idle',
      sql`DELETE FROM rate_windows WHERE key IN (
            SELECT key FROM rate_windows WHERE expire_second < floor(extract(epoch FROM clock_timestamp()))
             LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    ),
  );
  return rowCount ?? 0;
}
