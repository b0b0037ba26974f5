import { getConfig } from '../config';

/** Set by `npm start` from the connection itself, replacing anything a client sent. */
export const CLIENT_ADDRESS_HEADER = 'x-wgs-client-address';

/**
 * The address sign-in attempts and failed /v1 authentications are counted under. X-Forwarded-For is only believed with
 * TRUST_PROXY=true, and then only its last entry, the one the nearest proxy wrote: the earlier
 * ones are whatever the client sent.
 */
export function clientAddress(headers: Record<string, unknown> | undefined): string {
  const forwarded = headers?.['x-forwarded-for'];
  if (getConfig().TRUST_PROXY === 'true' && typeof forwarded === 'string') {
    const last = forwarded.split(',').at(-1)?.trim();
    if (last) return last;
  }
  const direct = headers?.[CLIENT_ADDRESS_HEADER];
  return typeof direct === 'string' && direct ? direct : 'unknown';
}
