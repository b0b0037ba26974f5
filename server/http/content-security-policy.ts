import { createHash } from 'node:crypto';
import { getConfig } from '../config';

// The dashboard's Content-Security-Policy. Scripts run only when they are the app's own: a page's
// scripts carry the nonce the proxy made for that request (Next.js adds it to each of its
// scripts; 'strict-dynamic' lets them load their own chunks), the API reference's are named by
// their hashes. Styles may be inline (React's style attributes, Scalar's theme); pictures and
// media may come from the object store's signed URLs, wherever it is.

const COMMON = [
  "default-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  'media-src * data: blob:',
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
];

/**
 * Where the pages' forms may go, redirects included: itself, the configured OAuth providers'
 * sign-in pages, and Stripe's hosted checkout when selling is on (/buy's form is sent there).
 */
function formAction(): string {
  const targets = ["'self'"];
  const config = getConfig();
  if (config.GITHUB_ID) targets.push('https://github.com');
  if (config.GOOGLE_CLIENT_ID) targets.push('https://accounts.google.com');
  if (config.STRIPE_SECRET_KEY) targets.push('https://checkout.stripe.com');
  if (config.STRIPE_API_BASE) targets.push(new URL(config.STRIPE_API_BASE).origin);
  return `form-action ${targets.join(' ')}`;
}

/** A fresh nonce for one answer: 128 random bits, base64. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
}

/** The policy of a dashboard page rendered with `nonce` (`next dev` also needs eval for its tooling). */
export function dashboardPolicy(nonce: string, dev = getConfig().NODE_ENV === 'development'): string {
  const script = `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`;
  return [...COMMON, script, formAction()].join('; ');
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/** The policy of a page whose inline scripts are known in full (the API reference): each by its hash. */
export function hashedPolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(
    ([, body]) =>
      `'sha256-${createHash('sha256')
        .update(body ?? '', 'utf8')
        .digest('base64')}'`,
  );
  return [...COMMON, `script-src 'self' ${hashes.join(' ')}`.trim(), "form-action 'none'"].join('; ');
}

/** HSTS for an answer that went out over https: a year, every subdomain. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';
