import { getConfig } from '../config';
import { parseProxyTrust, resolveClient, trustsForwardedHeaders, type ProxyTrust } from '../config/proxy-trust';
import type { Connection } from './connection';

// Who the client of a request is, for the per-address limits: from the connection `npm start`'s
// server accepted (and, behind trusted proxies, what they wrote in X-Forwarded-For), or, where no
// server of ours accepted it, from the platform's own header when CLIENT_ADDRESS_HEADER names one.

type HeaderSource = { get(name: string): string | null };

let parsed: { setting: string; trust: ProxyTrust } | undefined;

/** TRUST_PROXY as parsed (validated with the configuration, so never a message here). */
export function proxyTrust(): ProxyTrust {
  const setting = getConfig().TRUST_PROXY;
  if (parsed?.setting !== setting) {
    const trust = parseProxyTrust(setting);
    parsed = { setting, trust: typeof trust === 'string' ? { kind: 'none' } : trust };
  }
  return parsed.trust;
}

/** The platform's statement of the client (CLIENT_ADDRESS_HEADER); in a list, the entry it added last. */
function platformStatedAddress(headers: HeaderSource): string | undefined {
  const name = getConfig().CLIENT_ADDRESS_HEADER;
  const value = name ? headers.get(name) : null;
  return value?.split(',').at(-1)?.trim() || undefined;
}

/**
 * The address sign-in attempts, failed authentications and checkout starts are counted under:
 * the connection's, or behind trusted proxies (TRUST_PROXY: a number of hops or their CIDR
 * ranges) the address the outermost of them received the request from. Entries further left in
 * X-Forwarded-For are whatever the client sent and are never used. Without a connection, the
 * platform's header (CLIENT_ADDRESS_HEADER) or `unknown`, which no limit counts.
 */
export function clientAddress(connection: Connection | undefined, headers: HeaderSource): string {
  if (!connection) return platformStatedAddress(headers) ?? 'unknown';
  return resolveClient(proxyTrust(), connection.peerAddress, headers.get('x-forwarded-for') ?? undefined) ?? 'unknown';
}

/** Whether X-Forwarded-Host/-Proto of this request come from a trusted proxy. */
export function forwardedHeadersTrusted(connection: Connection | undefined): boolean {
  return trustsForwardedHeaders(proxyTrust(), connection?.peerAddress);
}
