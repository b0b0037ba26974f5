import { accessSync, constants, statSync } from 'node:fs';
import { z } from 'zod';
import { doc, RUNNING } from './config-doc';
import { proxyTrustSetting } from './proxy-trust';

// Retention, decoding and abuse limits, who the client is, and selling through Stripe (part of
// server/config/config-settings.ts).
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Checked at start: a wrong path would surface only as a 503 of every local media call. */
function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export const limitSettings = {
  UPLOAD_RETENTION_HOURS: doc(
    positiveInt(24),
    'Verified uploads are deleted (objects and all) this long after they were created; used as input afterwards they are 404.',
  ),
  OUTPUT_RETENTION_HOURS: doc(
    positiveInt(24),
    'Generated outputs (images, speech, video results) are deleted this long after they were made; their URLs are then 404.',
  ),
  FFMPEG_PATH: doc(
    z
      .string()
      .min(1)
      .refine(isExecutableFile, 'must name an executable ffmpeg (unset it to use the one on the PATH, else the bundled build)')
      .optional(),
    'The ffmpeg the local media engine runs; unset: `ffmpeg` on the PATH (a system build with security fixes), else the bundled 2018 build.',
  ),
  PATH: doc(
    z.string().optional(),
    "The system's search path: where `ffmpeg` (when FFMPEG_PATH is unset) and util-linux's `prlimit` are looked up.",
    RUNNING,
    true,
  ),
  FFMPEG_MEMORY_LIMIT_MB: doc(
    z.coerce.number().int().min(0).default(2048),
    'Address space one ffmpeg decode of customer media may use (set with prlimit when the system has it); 0: no limit.',
  ),
  TRUST_PROXY: doc(
    proxyTrustSetting,
    "The proxies in front of `npm start`'s server whose X-Forwarded-For/-Host/-Proto are believed (sign-in and failed-authentication limits, checkout starts, public URLs, https): false (none), true (one), a number of proxies in a chain (CDN, load balancer, ingress: 3), or a comma-separated list of their addresses and CIDR ranges (every address in it is a proxy; the first address from the connection back that is not is the client). Where no server of this service accepts the connection (`next start`, Vercel), see CLIENT_ADDRESS_HEADER. Trust only proxies every client must pass: a client that can reach the server directly past them (with `true`: any client) names its own address in X-Forwarded-For, and the per-address limits no longer hold it; where it can, list the proxies' addresses.",
    RUNNING,
  ),
  CLIENT_ADDRESS_HEADER: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be the name of an HTTP header, such as x-real-ip')
      .transform((name) => name.toLowerCase())
      .optional(),
    "Only where no server of this service accepts the connection (`next start`, Vercel): the request header in which the platform in front states the client's address, replacing whatever the client sent there (Vercel: x-real-ip). Unset, such requests have no known address and the per-address limits (failed authentications, sign-in, checkout starts) do not apply to them; the per-key limits still do. Never set it where a client can reach the service without passing that platform. `npm start` ignores it: it knows the connection (TRUST_PROXY).",
    RUNNING,
  ),
  AUTH_FAILURES_PER_MINUTE: doc(
    positiveInt(60),
    'Failed authentications (401 on /v1, and failed portal and dashboard sign-ins) one client address may have in any 60 s (IPv6 per /64; loopback addresses are not counted: a client or proxy on the host itself that connects over loopback; one that connects over a network address counts as one client unless TRUST_PROXY trusts it); past it the address gets 429 with Retry-After, without any database query. Each instance counts in its memory; with REDIS_URL every failure is also counted in Redis, one past that shared count is a 429, and every instance then refuses the address (told through Redis), so any number of instances let at most the limit through (without Redis each counts its own: up to N times the limit).',
    RUNNING,
  ),
  CHECKOUT_STARTS_PER_MINUTE: doc(
    positiveInt(10),
    'Stripe Checkout Sessions one client address may start at /buy in any 60 s, counted in the shared rate store (IPv6 per /64; loopback addresses are not counted: a client or proxy on the host itself that connects over loopback; one that connects over a network address counts as one client unless TRUST_PROXY trusts it); past it /buy says to try again in a minute and Stripe is not called.',
    RUNNING,
  ),
  MAX_CONNECTIONS: doc(positiveInt(1024), 'Open connections one instance accepts (npm start); the excess is closed at accept.', RUNNING),
  STRIPE_SECRET_KEY: doc(
    z
      .string()
      .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key (sk_test_..., sk_live_... or a restricted rk_ key)')
      .optional(),
    'Stripe secret key: with STRIPE_WEBHOOK_SECRET (one without the other is refused), turns on selling packages through Stripe Checkout at /buy (docs/selling.md). Both unset, selling is off and nothing else changes.',
    RUNNING,
  ),
  STRIPE_WEBHOOK_SECRET: doc(
    z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=_]+$/, "must be the webhook endpoint's signing secret (whsec_...)")
      .optional(),
    'The signing secret of the Stripe webhook endpoint (/api/stripe/webhook) or of `stripe listen`; selling needs it with STRIPE_SECRET_KEY.',
    RUNNING,
  ),
  STRIPE_API_BASE: doc(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) origin such as http://127.0.0.1:12111' }).optional(),
    "Where the Stripe SDK sends its calls (its host, port and protocol); unset: Stripe's API. Tests point it at a fake Stripe on 127.0.0.1.",
    ['tests'],
  ),
};
