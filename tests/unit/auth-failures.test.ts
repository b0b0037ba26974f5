import { afterEach, describe, expect, it } from 'vitest';
import { addressGroup, clearAuthFailures, noteFailedAuthentication, refuseFailingAddress } from '@/server/domain/rate-limit/auth-failures';
import { isApiError } from '@/server/domain/errors';
import { getConfig } from '@/server/config';

afterEach(clearAuthFailures);

function refusal(address: string, limit: number, nowMs: number): number | undefined {
  try {
    refuseFailingAddress(address, limit, nowMs);
    return undefined;
  } catch (error) {
    if (!isApiError(error) || error.code !== 'rate_limited') throw error;
    return error.retryAfter;
  }
}

describe('failed authentications per address', () => {
  it('groups IPv4 (also mapped) as is and IPv6 by /64; loopback and anything else is not counted', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressGroup('::1')).toBeUndefined(); // loopback: the host itself or a proxy on it
    expect(addressGroup('127.0.0.1')).toBeUndefined();
    expect(addressGroup('::ffff:127.0.0.1')).toBeUndefined();
    expect(addressGroup('unknown')).toBeUndefined();
    expect(addressGroup('')).toBeUndefined();
  });

  it('a sliding minute: refused past the limit until the oldest failures are a minute old', () => {
    const t0 = 1_800_000_000_000;
    noteFailedAuthentication('192.0.2.1', t0);
    noteFailedAuthentication('192.0.2.1', t0 + 59_900);
    expect(refusal('192.0.2.1', 3, t0 + 59_950)).toBeUndefined();
    noteFailedAuthentication('192.0.2.1', t0 + 59_950);
    expect(refusal('192.0.2.1', 3, t0 + 59_999)).toBe(1); // t0's failure leaves at t0 + 60 s exactly
    expect(refusal('192.0.2.1', 3, t0 + 60_000)).toBeUndefined();
    noteFailedAuthentication('192.0.2.1', t0 + 60_000);
    // the two failures of second 59 leave together, 60 s after the later one (59.95 s)
    expect(refusal('192.0.2.1', 3, t0 + 60_000)).toBe(60);
    expect(refusal('192.0.2.1', 3, t0 + 119_949)).toBe(1);
    expect(refusal('192.0.2.1', 3, t0 + 119_950)).toBeUndefined();
    expect(refusal('192.0.2.2', 3, t0 + 61_000)).toBeUndefined();
  });

  it('Retry-After is at most the window and at least 1 s, exact to the second when the failure leaves', () => {
    const t0 = 1_800_000_000_300; // 300 ms into a second: before, this was answered 61
    noteFailedAuthentication('198.51.100.9', t0);
    expect(refusal('198.51.100.9', 1, t0)).toBe(60);
    expect(refusal('198.51.100.9', 1, t0 + 500)).toBe(60); // 59.5 s left, rounded up
    expect(refusal('198.51.100.9', 1, t0 + 1_000)).toBe(59);
    expect(refusal('198.51.100.9', 1, t0 + 59_999)).toBe(1);
    expect(refusal('198.51.100.9', 1, t0 + 60_000)).toBeUndefined();
  });
});

describe('failures sent at once', () => {
  it('each is judged as it is counted, not only before its key is looked up: past the limit it is the 429 (outside audit: 150 at once got 150 401s)', async () => {
    const limit = getConfig().AUTH_FAILURES_PER_MINUTE;
    const t0 = 1_800_000_000_000;
    // All of them passed step 0 before any failure was counted.
    for (let i = 0; i < limit + 3; i++) refuseFailingAddress('203.0.113.50', limit, t0);
    const answers = await Promise.all(Array.from({ length: limit + 3 }, () => noteFailedAuthentication('203.0.113.50', t0)));
    expect(answers.filter((answer) => answer === undefined)).toHaveLength(limit);
    expect(answers.slice(limit).map((answer) => [answer?.code, answer?.retryAfter])).toEqual(Array(3).fill(['rate_limited', 60]));
  });
});
