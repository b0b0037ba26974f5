import { isIP } from 'node:net';
import { getConfig } from '../../config';
import { isMetadataHost } from '../../providers/metadata-hosts';
import { addressClass } from '../../providers/outbound/address-class';

// Webhook endpoints reach only the public internet (no SSRF into the service's own network):
// https, and a public address, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS opens http and private
// ranges; metadata and link-local addresses never. The URL is judged when it is set, and the
// outbound door judges the address each delivery actually connects to (outbound-door.ts).

export function privateNetworksAllowed(): boolean {
  return getConfig().WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true';
}

/** A loopback, private, link-local, metadata, shared, multicast or reserved address (IPv4 in IPv6 as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  return addressClass(address) !== 'public';
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
  if (isMetadataHost(host)) return 'must not be a cloud metadata or link-local address';
  if (!allowPrivate && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host)))) {
    return 'must be a public address (set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for private networks)';
  }
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
