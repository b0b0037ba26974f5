import { isIP } from 'node:net';
import { parse } from 'tldts';
import { getConfig } from '../../config';
import { isMetadataHost } from '../../providers/metadata-hosts';
import { addressClass } from '../../providers/outbound/address-class';

// Webhook endpoints reach only the public internet (no SSRF into the service's own network):
// https, and a public DNS name or a public address, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS opens
// http and private ranges; metadata and link-local addresses never. The URL is judged when it is
// saved (and again before each delivery), without resolving its name; the webhooks' door judges
// the address each delivery actually connects to, since DNS can change (webhook-door.ts).

export function privateNetworksAllowed(): boolean {
  return getConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true';
}

/** A loopback, private, link-local, metadata, shared, multicast or reserved address (IPv4 in IPv6 as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  return addressClass(address) !== 'public';
}

/**
 * Top-level names the Public Suffix List counts as ICANN's that are no public endpoint's:
 * `arpa` (home.arpa, reverse zones) and `onion`. The special-use names outside the list
 * (localhost, local, test, example, invalid, alt, internal, ...) are no ICANN suffix already.
 */
const SPECIAL_USE_TOP_LEVEL = new Set(['arpa', 'onion']);

/** Whether `name` (lowercase, no trailing dot) is a name in the public DNS: a domain under an ICANN suffix (tldts). */
function isPublicDnsName(name: string): boolean {
  const parsed = parse(name, { allowPrivateDomains: false });
  if (parsed.isIp !== false || parsed.isIcann !== true || parsed.domain === null) return false;
  return !SPECIAL_USE_TOP_LEVEL.has(name.slice(name.lastIndexOf('.') + 1));
}

/** Why `host` (an URL's hostname: any spelling of an IPv4 address is already dotted decimal) is not a public host, or null. */
function privateHostReason(host: string): string | null {
  if (isIP(host)) return isPrivateAddress(host) ? 'a private or reserved address' : null;
  const name = host.replace(/\.+$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'this machine (localhost)';
  return isPublicDnsName(name) ? null : 'not a public DNS name';
}

/** A character a URL never holds as it is (RFC 3986 §2): whitespace and every control character. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u0020\u007f-\u009f]/;

/**
 * Why a webhook URL is refused, or null when it may be used. An operator is told which setting lets
 * a private network in; a customer (the portal) is not: the setting is not theirs.
 */
export function webhookUrlProblem(raw: string, reader: 'operator' | 'customer' = 'operator'): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  // new URL() drops tabs and line breaks silently: the URL stored and shown (in the security e-mail too) would carry them.
  if (CONTROL_CHARACTER.test(raw)) return 'must not contain spaces, tabs, line breaks or other control characters';
  if (raw.length > 2000) return 'must be at most 2000 characters';
  if (url.username || url.password) return 'must not carry a user name or password';
  const allowPrivate = privateNetworksAllowed();
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL';
  if (url.port === '0') return 'must not name port 0';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isMetadataHost(host)) return 'must not be a cloud metadata or link-local address';
  const reason = allowPrivate ? null : privateHostReason(host);
  const setting = reader === 'operator' ? ' (private networks need WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)' : '';
  if (reason) return `must name a public host: ${host} is ${reason}${setting}`;
  return null;
}

/** The host (and port) of an endpoint URL: what a viewer and the audit log see of it. */
export function endpointHost(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
