import { isIP } from 'node:net';
import { addressClass } from './outbound/address-class';

// Cloud metadata services answer anyone on the machine with its credentials (AWS, GCP, Azure,
// Alibaba, EKS Pod Identity): no provider URL may point there, neither an operator's base_url nor
// a URL a provider's answer names. The whole IPv4 link-local range (169.254.0.0/16), IPv6
// link-local (fe80::/10) and AWS's fd00:ec2::/64 are refused with them, in any spelling that
// reaches them (IPv4-mapped, NAT64 64:ff9b::a9fe:a9fe, ...): see outbound/address-class.ts.
// This judges names and literal addresses in URLs; the outbound door (outbound/outbound-door.ts)
// judges the address each connection actually reaches.

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

/** true for a cloud metadata host name or a metadata / link-local address (IPv6 with or without brackets). */
export function isMetadataHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return true;
  return isIP(name) !== 0 && addressClass(name) === 'metadata';
}

/** The URL's host when it is a metadata or link-local host; undefined for any other (or no valid) URL. */
export function metadataHostOf(url: string | URL): string | undefined {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return undefined;
  }
  return isMetadataHost(parsed.hostname) ? parsed.hostname : undefined;
}
