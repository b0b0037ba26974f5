import { describe, expect, it } from 'vitest';
import { parseProxyTrust, resolveClient, trustsForwardedHeaders, type ProxyTrust } from '@/server/config/proxy-trust';
import { readConfig } from '@/server/config';

function trust(setting: string): ProxyTrust {
  const parsed = parseProxyTrust(setting);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

// A customer behind a CDN edge, a load balancer and an ingress: each proxy appends the address
// it received the connection from; the app's connection is the ingress.
const CHAIN = '198.51.100.10, 173.245.48.5, 10.1.0.5';
const INGRESS = '10.2.0.7';

describe('TRUST_PROXY', () => {
  it('accepts true, false, a number of proxies, or a list of addresses and CIDR ranges; anything else names the variable', () => {
    expect(trust('false')).toEqual({ kind: 'none' });
    expect(trust('true')).toEqual({ kind: 'hops', hops: 1 });
    expect(trust('3')).toEqual({ kind: 'hops', hops: 3 });
    expect(trust(' 10.0.0.0/8, 2400:cb00::/32 ,192.0.2.7').kind).toBe('cidrs');
    for (const wrong of ['yes', '10.0.0.0/33', '10.0.0/8', '2400:cb00::/129', '10.0.0.0/8,', 'example.com', '64']) {
      expect(typeof parseProxyTrust(wrong), wrong).toBe('string');
      expect(() => readConfig({ NODE_ENV: 'test', TRUST_PROXY: wrong }), wrong).toThrow(/TRUST_PROXY/);
    }
    expect(readConfig({ NODE_ENV: 'test', TRUST_PROXY: '10.0.0.0/8,173.245.48.0/20' }).TRUST_PROXY).toBe('10.0.0.0/8,173.245.48.0/20');
  });

  it('a number of proxies: the entry that many from the end, never one the client wrote further left', () => {
    expect(resolveClient(trust('false'), INGRESS, CHAIN)).toBe(INGRESS);
    expect(resolveClient(trust('true'), INGRESS, CHAIN)).toBe('10.1.0.5');
    expect(resolveClient(trust('3'), INGRESS, CHAIN)).toBe('198.51.100.10');
    expect(resolveClient(trust('3'), INGRESS, `6.6.6.6, ${CHAIN}`)).toBe('198.51.100.10');
    expect(resolveClient(trust('3'), INGRESS, '10.1.0.5')).toBe('10.1.0.5'); // fewer entries: the furthest
    expect(resolveClient(trust('true'), INGRESS, undefined)).toBe(INGRESS);
    expect(resolveClient(trust('true'), undefined, undefined)).toBeUndefined();
  });

  it('CIDR ranges: walking back from the connection, the first address outside them is the client', () => {
    const ranges = trust('10.0.0.0/8, 173.245.48.0/20, 2400:cb00::/32');
    expect(resolveClient(ranges, INGRESS, CHAIN)).toBe('198.51.100.10');
    expect(resolveClient(ranges, INGRESS, `6.6.6.6, ${CHAIN}`)).toBe('198.51.100.10');
    expect(resolveClient(ranges, `::ffff:${INGRESS}`, '2001:db8::9, 2400:cb00:1::5')).toBe('2001:db8::9');
    // a connection from outside the ranges is the client: whatever it says is not believed
    expect(resolveClient(ranges, '203.0.113.9', CHAIN)).toBe('203.0.113.9');
    // a chain of proxies only: the furthest one
    expect(resolveClient(ranges, INGRESS, '10.1.0.5')).toBe('10.1.0.5');
    // garbage the client wrote is never skipped over as if it were a proxy
    expect(resolveClient(ranges, INGRESS, 'not-an-address, 10.1.0.5')).toBe('not-an-address');
    expect(trustsForwardedHeaders(ranges, INGRESS)).toBe(true);
    expect(trustsForwardedHeaders(ranges, '203.0.113.9')).toBe(false);
    expect(trustsForwardedHeaders(ranges, undefined)).toBe(false);
    expect(trustsForwardedHeaders(trust('2'), undefined)).toBe(true);
    expect(trustsForwardedHeaders(trust('false'), INGRESS)).toBe(false);
  });
});
