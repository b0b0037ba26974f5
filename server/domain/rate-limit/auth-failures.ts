import { isIPv4, isIPv6 } from 'node:net';
import { getConfig } from '../../config';
import type { Redis } from 'ioredis';
import { getRedis } from '../../db/redis';
import { ApiError } from '../errors';
import { waitSeconds } from './request-rate';
import { redisWindowStore } from './sliding-window';

// Failed authentications per client address. Refusing an address costs no query: each instance
// keeps its count in memory (a flood of bad keys must not become load on the database), and a
// 401 stays free of database writes. The count is a sliding window of 60 s in one-second buckets,
// each leaving the window 60 s after its latest failure, like the per-key limit. With REDIS_URL
// every failure is also counted in Redis, shared by all instances, and is a 401 only if it fits
// that count: past the limit it is answered 429, and its instance refuses the address until the
// count frees. So across any number of instances, failures sent at once included, at most the
// limit get a 401 (the shared count is taken atomically; an instance's own count is judged as each
// failure is counted, not only before its key is looked up). Without Redis each instance counts
// only its own, so N instances let at most N times the limit through (the key space, ~238 bits, is the
// real defence; this bounds the cost). IPv6 addresses count per /64, the block one client usually
// holds. A loopback address is not counted: it is the host itself or a proxy on it (without
// TRUST_PROXY), whose requests are every client's, so counting them would let one client's bad
// keys lock every customer out. An instance that finds the shared count at the limit tells the
// others (Redis pub/sub), so the address is refused by every instance, not only by those that
// answered one of its failures, at once (a message's time) and without a query per request.

const WINDOW_SECONDS = 60;
const MAX_ADDRESSES = 100_000;

interface Buckets {
  seconds: number[];
  counts: number[];
  /** Epoch ms of each bucket's latest failure: the bucket leaves the window WINDOW_SECONDS after it. */
  latest: number[];
}

const failures = new Map<string, Buckets>();
/** Addresses the shared count found at the limit: refused here until the epoch ms given. */
const sharedRefusals = new Map<string, number>();

/** The unit an address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64; loopback none. */
export function addressGroup(address: string): string | undefined {
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
  const ipv4 = mapped && isIPv4(mapped) ? mapped : isIPv4(address) ? address : undefined;
  if (ipv4) return ipv4.startsWith('127.') ? undefined : ipv4;
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare) || bare === '::1') return undefined;
  const [head = '', tail] = bare.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

function live(group: string, nowMs: number): Buckets | undefined {
  const buckets = failures.get(group);
  if (!buckets) return undefined;
  while (buckets.latest.length > 0 && buckets.latest[0]! + WINDOW_SECONDS * 1000 <= nowMs) {
    buckets.seconds.shift();
    buckets.counts.shift();
    buckets.latest.shift();
  }
  if (buckets.seconds.length === 0) failures.delete(group);
  return buckets.seconds.length > 0 ? buckets : undefined;
}

/** Step 0, before any key lookup: 429 with Retry-After for an address past its failures. */
export function refuseFailingAddress(address: string, limit: number, nowMs = Date.now()): void {
  const group = addressGroup(address);
  if (!group) return;
  const sharedUntil = sharedRefusals.get(group);
  if (sharedUntil !== undefined) {
    if (sharedUntil > nowMs) throw tooManyFailures(limit, waitSeconds(sharedUntil - nowMs, WINDOW_SECONDS));
    sharedRefusals.delete(group);
  }
  const refusal = localRefusal(group, limit, nowMs);
  if (refusal) throw refusal;
}

/** The 429 for an address this instance has counted `limit` failures of in the window, with when one leaves it. */
function localRefusal(group: string, limit: number, nowMs: number): ApiError | undefined {
  const buckets = live(group, nowMs);
  if (!buckets) return undefined;
  let total = buckets.counts.reduce((sum, count) => sum + count, 0);
  if (total < limit) return undefined;
  let i = 0;
  while (total >= limit && i < buckets.counts.length) total -= buckets.counts[i++]!;
  return tooManyFailures(limit, waitSeconds(buckets.latest[i - 1]! + WINDOW_SECONDS * 1000 - nowMs, WINDOW_SECONDS));
}

function tooManyFailures(limit: number, retryAfter: number): ApiError {
  return new ApiError('rate_limited', {
    message: `Too many failed authentications from this address (${limit} per minute). Retry later.`,
    retryAfter,
  });
}

/**
 * Counts a failed authentication of the address (one that cannot be told apart is not counted):
 * in this instance at once, and with REDIS_URL in the count all instances share. Returns the 429
 * to answer instead of the 401 when the shared count was already at the limit.
 */
export async function noteFailedAuthentication(address: string, nowMs = Date.now()): Promise<ApiError | undefined> {
  const group = addressGroup(address);
  if (!group) return undefined;
  // Failures sent at once all pass step 0 before any is counted: each is judged again as it is.
  const local = localRefusal(group, getConfig().AUTH_FAILURES_PER_MINUTE, nowMs);
  if (local) return local;
  countHere(group, nowMs);
  const redis = getRedis();
  return redis ? countShared(redis, group) : undefined;
}

function countHere(group: string, nowMs: number): void {
  const second = Math.floor(nowMs / 1000);
  const buckets = live(group, nowMs);
  if (!buckets) {
    if (failures.size >= MAX_ADDRESSES) failures.delete(failures.keys().next().value!);
    failures.set(group, { seconds: [second], counts: [1], latest: [nowMs] });
    return;
  }
  const last = buckets.seconds.length - 1;
  if (buckets.seconds[last]! >= second) {
    buckets.counts[last]! += 1;
    buckets.latest[last] = Math.max(buckets.latest[last]!, nowMs);
  } else {
    buckets.seconds.push(second);
    buckets.counts.push(1);
    buckets.latest.push(nowMs);
  }
}

/**
 * Counts the failure where every instance sees it; past the limit, every instance refuses the
 * address until it frees (this one at once, this failure included; the others when told).
 */
async function countShared(redis: Redis, group: string): Promise<ApiError | undefined> {
  const limit = getConfig().AUTH_FAILURES_PER_MINUTE;
  try {
    const hit = await redisWindowStore(redis).take(`auth-failures:${group}`, limit, WINDOW_SECONDS, undefined, { keepLate: true });
    if (hit.allowed && hit.used < limit) return undefined;
    refuseShared(group, hit.waitMs);
    void redis.publish(LOCKOUT_CHANNEL, `${group} ${Math.ceil(hit.waitMs)}`).catch(() => {});
    return hit.allowed ? undefined : tooManyFailures(limit, waitSeconds(hit.waitMs, WINDOW_SECONDS));
  } catch {
    // Redis unavailable: this instance's own count still limits the address.
    return undefined;
  }
}

function refuseShared(group: string, waitMs: number): void {
  const until = Date.now() + waitMs;
  if ((sharedRefusals.get(group) ?? 0) >= until) return;
  if (!sharedRefusals.has(group) && sharedRefusals.size >= MAX_ADDRESSES) sharedRefusals.delete(sharedRefusals.keys().next().value!);
  sharedRefusals.set(group, until);
}

/** Where an instance says which address the shared count refuses, and for how long: `<group> <ms>`. */
const LOCKOUT_CHANNEL = 'wgs:auth-failures:refused';

/**
 * With REDIS_URL: hears the addresses other instances found past the shared count, on a connection
 * of its own (a subscribed one runs no other command), subscribing again whenever it reconnects.
 */
export function listenForSharedRefusals(): { stop(): Promise<void> } | undefined {
  const redis = getRedis();
  if (!redis) return undefined;
  const subscriber = redis.duplicate({ autoResubscribe: false, maxRetriesPerRequest: null });
  subscriber.on('error', () => {}); // reconnects by itself
  subscriber.on('ready', () => void subscriber.subscribe(LOCKOUT_CHANNEL).catch(() => {}));
  subscriber.on('message', (channel: string, message: string) => {
    const [group, ms] = message.split(' ');
    const waitMs = Number(ms);
    if (channel === LOCKOUT_CHANNEL && group && Number.isFinite(waitMs) && waitMs > 0)
      refuseShared(group, Math.min(waitMs, WINDOW_SECONDS * 1000));
  });
  return {
    stop: () =>
      subscriber.quit().then(
        () => undefined,
        () => subscriber.disconnect(),
      ),
  };
}

export function clearAuthFailures(): void {
  failures.clear();
  sharedRefusals.clear();
}
