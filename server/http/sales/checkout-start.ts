import { randomBytes } from 'node:crypto';
import { getConfig } from '../../config';
import { getPrisma, getSqlDb } from '../../db/client';
import { isApiError } from '../../domain/errors';
import { takeCheckoutStart } from '../../domain/sales/checkout-rate';
import { startPackageCheckout } from '../../domain/sales/start-checkout';
import { getStripe } from '../../payments/stripe-client';
import { publicOrigin } from '../../auth/forwarded';
import { clientAddress, forwardedHeadersTrusted } from '../../auth/client-address';
import { acceptedConnection } from '../../auth/connection';
import { crossSiteRefusal } from '../same-origin';
import { orUnavailable } from '../store-unavailable-answer';

// POST /buy/checkout (the catalogue's form): starts a Checkout Session and sends the buyer to it.
// The httpOnly cookie set here is what lets this browser, and only it, see the new key once. Each
// checkout mints a fresh token (never one the request brings) and adds it to the cookie, which keeps
// the browser's latest few, so a buyer with two checkouts open sees each key where it was bought. A
// token the browser brings back only ever opens a checkout started with it. The cookie is a __Host-
// cookie: Secure, Path=/, no Domain, so no other host can set or read it. Browsers accept it over
// https and on http://localhost.

export const CHECKOUT_COOKIE = '__Host-wgs_checkout';
/** Checkouts one browser can have open and still see each key: the cookie keeps this many tokens, newest first. */
export const CHECKOUT_TOKENS_KEPT = 5;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The checkout tokens of the browser's cookie, newest first (at most CHECKOUT_TOKENS_KEPT, each well-formed). */
export function checkoutCookieOf(cookieHeader: string | null): string[] {
  const value = cookieHeader
    ?.split(';')
    .map((part) => part.trim().split('='))
    .find(([name]) => name === CHECKOUT_COOKIE)?.[1];
  return (value ?? '')
    .split('.')
    .filter((token) => TOKEN_PATTERN.test(token))
    .slice(0, CHECKOUT_TOKENS_KEPT);
}

function redirect(location: string, cookie?: string): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  if (cookie) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}

/** POST /buy/checkout; the database away is 503 with Retry-After (the buyer's browser may send the form again). */
export const handleCheckoutStart = orUnavailable(startCheckout);

async function startCheckout(request: Request): Promise<Response> {
  const refused = crossSiteRefusal(request, false);
  if (refused) return refused;
  const config = getConfig();
  const connection = acceptedConnection();
  const origin = publicOrigin(request, config.PUBLIC_BASE_URL, forwardedHeadersTrusted(connection));
  const stripe = getStripe();
  if (!stripe) return redirect(new URL('/buy', origin).href);
  const form = await request.formData().catch(() => null);
  const packageVersionId = form?.get('package_version_id');
  if (typeof packageVersionId !== 'string' || !/^[0-9a-f-]{36}$/i.test(packageVersionId)) {
    return redirect(new URL('/buy?error=unavailable', origin).href);
  }
  if (!(await takeCheckoutStart(getSqlDb(), clientAddress(connection, request.headers), config.CHECKOUT_STARTS_PER_MINUTE))) {
    return redirect(new URL('/buy?error=busy', origin).href);
  }
  const browserToken = randomBytes(32).toString('base64url');
  try {
    const started = await startPackageCheckout(getPrisma(), stripe, { packageVersionId, origin, browserToken });
    const tokens = [browserToken, ...checkoutCookieOf(request.headers.get('cookie'))].slice(0, CHECKOUT_TOKENS_KEPT);
    return redirect(started.url, `${CHECKOUT_COOKIE}=${tokens.join('.')}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=86400`);
  } catch (error) {
    if (!isApiError(error)) throw error;
    return redirect(new URL(`/buy?error=${error.code === 'not_found' ? 'unavailable' : 'stripe'}`, origin).href);
  }
}
