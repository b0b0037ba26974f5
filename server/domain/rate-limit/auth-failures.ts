import { isIPv4, isIPv6 } from 'node:net';
import { ApiError } from '../errors';
import { waitSeconds } from './request-rate';

// Failed authentications per client address, counted in this instance's memory: a refused
// address costs no database query or write (a flood of bad keys must not become load on the
// database), and a 401 stays free of writes. The count is a sliding window of 60 s in one-second
// buckets, each leaving the window 60 s after its latest failure, like the per-key limit; each instance counts its own, so N instances let at most N
// times the limit through (the key space, ~238 bits, is the real defence; this bounds the cost).
// IPv6 addresses count per /64, the block one client usually holds. A loopback address is not
// counted: it is the host itself or a proxy on it (without TRUST_PROXY), whose requests are every
// client's, so counting them would let one client's bad keys lock every customer out.

const WINDOW_SECONDS = 60;
const MAX_ADDRESSES = 100_000;

interface Buckets {
  seconds: number[];
  counts: number[];
  /** Epoch ms of each bucket's latest failure: the bucket leaves the window WINDOW_SECONDS after it. */
  latest: number[];
}

const failures = new Map<string, Buckets>();

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
  const buckets = group && live(group, nowMs);
  if (!buckets) return;
  let total = buckets.counts.reduce((sum, count) => sum + count, 0);
  if (total < limit) return;
  let i = 0;
  while (total >= limit && i < buckets.counts.length) total -= buckets.counts[i++]!;
  const retryAfter = waitSeconds(buckets.latest[i - 1]! + WINDOW_SECONDS * 1000 - nowMs, WINDOW_SECONDS);
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

export function clearAuthFailures(): void {
  failures.clear();
}
