import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { getConfig } from '../../config';

// Webhook endpoints reach only the public internet (no SSRF into the service's own network):
// https, and every address the host resolves to public, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS.
// The check is made when the URL is set and again on the addresses each delivery connects to.

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function privateNetworksAllowed(): boolean {
  return getConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true';
}

/** A loopback, private, link-local, shared, multicast or reserved address (IPv4-mapped IPv6 as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why a webhook URL is refused, or null when it may be used. */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (raw.length > 2000) return 'must be at most 2000 characters';
  if (url.username || url.password) return 'must not carry a user name or password';
  const allowPrivate = privateNetworksAllowed();
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host)))) {
    return 'must be a public address (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for private networks)';
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for node:http(s) that refuses hosts resolving to a private address (when not allowed). */
export function publicOnlyLookup(hostname: string, options: object, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (!privateNetworksAllowed() && addresses.some((entry) => isPrivateAddress(entry.address))) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EWEBHOOKPRIVATE' });
      return callback(refused, []);
    }
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
