import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

// TRUST_PROXY, parsed: which proxies in front of the service may say who the client is.
//   false        none: the connection's own address (X-Forwarded-* ignored)
//   true / 1     one proxy: the last X-Forwarded-For entry, the one it wrote
//   N            N proxies in a chain (CDN -> load balancer -> ingress is 3): the Nth entry from
//                the end, the address the outermost proxy received the connection from
//   CIDR list    proxies by address (10.0.0.0/8, 2400:cb00::/32, 192.0.2.7, ...): walking back
//                from the connection, every address in the list is a proxy; the first one that
//                is not is the client. A connection from outside the list is the client itself.
// Matching uses node's net.BlockList (ranges of either family, IPv4-mapped IPv6 as IPv4).

export type ProxyTrust = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'cidrs'; proxies: BlockList };

const MAX_HOPS = 32;

function addRange(list: BlockList, entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) {
    list.addAddress(address, type);
    return true;
  }
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) return false;
  list.addSubnet(address, bits, type);
  return true;
}

/** The parsed setting, or a message saying what is wrong with it. */
export function parseProxyTrust(value: string): ProxyTrust | string {
  const trimmed = value.trim();
  if (trimmed === 'false' || trimmed === '0') return { kind: 'none' };
  if (trimmed === 'true') return { kind: 'hops', hops: 1 };
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return hops <= MAX_HOPS ? { kind: 'hops', hops } : `must be at most ${MAX_HOPS} proxies`;
  }
  const proxies = new BlockList();
  const entries = trimmed.split(',').map((entry) => entry.trim());
  const wrong = entries.find((entry) => !addRange(proxies, entry));
  if (wrong !== undefined)
    return `must be true, false, a number of proxies, or a comma-separated list of proxy addresses or CIDR ranges ("${wrong}" is none of these)`;
  return { kind: 'cidrs', proxies };
}

/** An address as BlockList checks it: IPv4-mapped IPv6 as IPv4, brackets and zone dropped. */
function plain(address: string): { address: string; type: 'ipv4' | 'ipv6' } | undefined {
  const bare = address
    .trim()
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '');
  const mapped = bare.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i)?.[1];
  const candidate = mapped ?? bare;
  const family = isIP(candidate);
  return family === 0 ? undefined : { address: candidate, type: family === 4 ? 'ipv4' : 'ipv6' };
}

function isProxy(trust: ProxyTrust & { kind: 'cidrs' }, address: string | undefined): boolean {
  const parsed = address === undefined ? undefined : plain(address);
  return parsed !== undefined && trust.proxies.check(parsed.address, parsed.type);
}

/**
 * The client's address: `connection` is the peer of the TCP connection (undefined when unknown),
 * `forwardedFor` the X-Forwarded-For header as received. Undefined when it cannot be told.
 */
export function resolveClient(trust: ProxyTrust, connection: string | undefined, forwardedFor: string | undefined): string | undefined {
  if (trust.kind === 'none') return connection;
  const forwarded = (forwardedFor ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Nearest first: the connection, then what each proxy wrote, from the last entry back.
  const chain = [connection, ...forwarded.reverse()];
  if (trust.kind === 'hops') {
    const index = Math.min(trust.hops, chain.length - 1);
    return chain[index] ?? connection;
  }
  if (!isProxy(trust, connection)) return connection;
  let index = 0;
  while (index + 1 < chain.length && isProxy(trust, chain[index])) index += 1;
  return chain[index];
}

/** Whether the request came through a proxy whose X-Forwarded-Host/-Proto may be believed. */
export function trustsForwardedHeaders(trust: ProxyTrust, connection: string | undefined): boolean {
  if (trust.kind === 'cidrs') return isProxy(trust, connection);
  return trust.kind === 'hops' && trust.hops > 0;
}

/** The setting's schema: a string that parses (the message says what is wrong otherwise). */
export const proxyTrustSetting = z
  .string()
  .default('false')
  .superRefine((value, ctx) => {
    const trust = parseProxyTrust(value);
    if (typeof trust === 'string') ctx.addIssue({ code: 'custom', message: trust });
  });
