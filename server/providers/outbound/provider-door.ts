import { openOutboundDoor } from './outbound-door';

// The providers' door: API calls, form uploads, redirect hops and media downloads made for a
// provider. A private address (loopback, RFC 1918, ...) is reached only at an origin an operator
// named for a provider (its base_url); webhook deliveries never use this door or its allowance.

/** Origins (scheme, host, port) at which a private address may be reached, by the provider that named them. */
const privateOrigins = new Map<string, string>();

/**
 * Lets a provider's `origin` reach a private address, never a metadata or link-local one; `null`
 * takes back what the provider allowed before. `owner` names the setting (`provider:main`).
 */
export function allowProviderPrivateOrigin(owner: string, origin: string | null): void {
  if (origin === null) privateOrigins.delete(owner);
  else privateOrigins.set(owner, new URL(origin).origin);
}

function providerPrivateAllowedAt(origin: string): boolean {
  for (const allowed of privateOrigins.values()) if (allowed === origin) return true;
  return false;
}

/** Every outgoing request for a provider is dispatched through it. */
export const providerDoor = openOutboundDoor(providerPrivateAllowedAt);
