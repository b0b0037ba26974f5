import { getConfig } from '../config';
import { parseProxyTrust, resolveClient, trustsForwardedHeaders, type ProxyTrust } from '../config/proxy-trust';

/** Set by `npm start` from the connection itself, replacing anything a client sent. */
export const CLIENT_ADDRESS_HEADER = 'x-wgs-client-address';

type HeaderBag = Record<string, unknown> | { get(name: string): string | null } | undefined;

function header(headers: HeaderBag, name: string): string | undefined {
  if (!headers) return undefined;
  const value =
    typeof headers.get === 'function'
      ? (headers as { get(name: string): string | null }).get(name)
      : (headers as Record<string, unknown>)[name];
  return typeof value === 'string' && value ? value : undefined;
}

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

/**
 * The address sign-in attempts and failed /v1 authentications are counted under: the
 * connection's, or behind trusted proxies (TRUST_PROXY: a number of hops or their CIDR ranges)
 * the address the outermost of them received the request from. Entries further left in
 * X-Forwarded-For are whatever the client sent and are never used.
 */
export function clientAddress(headers: HeaderBag): string {
  return resolveClient(proxyTrust(), header(headers, CLIENT_ADDRESS_HEADER), header(headers, 'x-forwarded-for')) ?? 'unknown';
}

/** Whether X-Forwarded-Host/-Proto of this request come from a trusted proxy. */
export function forwardedHeadersTrusted(headers: HeaderBag): boolean {
  return trustsForwardedHeaders(proxyTrust(), header(headers, CLIENT_ADDRESS_HEADER));
}
