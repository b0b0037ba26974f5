import { isIPv4, isIPv6 } from 'node:net';
import { ApiError } from '../errors';

// Failed authentications per client address, counted in this instance's memory: a refused
// address costs no database query or write (a flood of bad keys must not become load on the
// database), and a 401 stays free of writes. The count is a sliding window of 60 s in one-second
// buckets, like the per-key limit; each instance counts its own, so N instances let at most N
// times the limit through (the key space, ~238 bits, is the real defence; this bounds the cost).
// IPv6 addresses count per /64, the block one client usually holds.

const WINDOW_SECONDS = 60;
const MAX_ADDRESSES = 100_000;

interface Buckets {
  seconds: number[];
  counts: number[];
}

const failures = new Map<string, Buckets>();

/** The unit an address is counted under: IPv4 as is (also when IPv4-mapped), IPv6 by its /64. */
export function addressGroup(address: string): string | undefined {
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return undefined;
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
  const oldest = Math.floor(nowMs / 1000) - WINDOW_SECONDS;
  while (buckets.seconds.length > 0 && buckets.seconds[0]! < oldest) {
    buckets.seconds.shift();
    buckets.counts.shift();
  }
  if (buckets.seconds.length === 0) failures.delete(group);
  return buckets.seconds.length > 0 ? buckets : undefined;
}

/** Step 0, before any key lookup: 429 with Retry-After for an address past its failures. */
export function refuseFailingAddress(address: string, limit: number, nowMs = Date.now()): void {
  const group = addressGroup(address);
  const buckets = group && live(group, nowMs);
  if (!buckets) return;
  let total = buckets.counts.reduce((sum, count) => sum + count, 0);
  if (total < limit) return;
  let i = 0;
  while (total >= limit && i < buckets.counts.length) total -= buckets.counts[i++]!;
  const waitMs = (buckets.seconds[i - 1]! + WINDOW_SECONDS + 1) * 1000 - nowMs;
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  throw new ApiError('rate_limited', {
    message: `Too many failed authentications from this address (${limit} per minute). Retry later.`,
    retryAfter,
  });
}

/** Counts a failed authentication of the address (one that cannot be told apart is not counted). */
export function noteFailedAuthentication(address: string, nowMs = Date.now()): void {
  const group = addressGroup(address);
  if (!group) return;
  const second = Math.floor(nowMs / 1000);
  const buckets = live(group, nowMs);
  if (!buckets) {
    if (failures.size >= MAX_ADDRESSES) failures.delete(failures.keys().next().value!);
    failures.set(group, { seconds: [second], counts: [1] });
    return;
  }
  const last = buckets.seconds.length - 1;
  if (buckets.seconds[last]! >= second) buckets.counts[last]! += 1;
  else {
    buckets.seconds.push(second);
    buckets.counts.push(1);
  }
}

export function clearAuthFailures(): void {
  failures.clear();
}
