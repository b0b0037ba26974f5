// Cloud metadata services answer anyone on the machine with its credentials (AWS, GCP, Azure,
// Alibaba): no provider URL may point there, neither an operator's base_url nor a URL a
// provider's answer names. The whole IPv4 link-local range (169.254.0.0/16) and IPv6 link-local
// (fe80::/10) are refused with them: no provider API lives on a link-local address.
// Pure (no Node modules): the domain's checks and the outgoing fetch share it.

const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
const METADATA_ADDRESSES = new Set(['100.100.100.200', 'fd00:ec2::254']);

function ipv4LinkLocal(address: string): boolean {
  const parts = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(address);
  return parts !== null && parts[1] === '169' && parts[2] === '254';
}

/** IPv4 written inside IPv6 (::ffff:169.254.169.254, or as URL parsing spells it, ::ffff:a9fe:a9fe). */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^(?:0{0,4}:){0,5}(?:ffff:)?((?:\d{1,3}\.){3}\d{1,3})$/i.exec(address);
  if (dotted) return dotted[1];
  const hex =
    /^(?:0{0,4}:){0,5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address) ?? /^::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** true for a cloud metadata host name or a link-local address (IPv6 with or without brackets). */
export function isMetadataHost(host: string): boolean {
  const name = host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (METADATA_NAMES.has(name) || METADATA_ADDRESSES.has(name)) return true;
  if (ipv4LinkLocal(name)) return true;
  if (/^fe[89ab][0-9a-f]:/.test(name)) return true;
  const inner = name.includes(':') ? embeddedIpv4(name) : undefined;
  return inner !== undefined && (ipv4LinkLocal(inner) || METADATA_ADDRESSES.has(inner));
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
