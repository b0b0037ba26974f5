import { z } from 'zod';
import { doc, RUNNING } from './config-doc';

// Selling's abuse limits, the customer portal's switch and the buyer's e-mail (part of
// server/config/config-settings.ts; docs/selling.md).

/** An address, or a name and an address in angle brackets: what nodemailer sends as From. */
const SENDER = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>.][^\s@<>]*\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>.][^\s@<>]*\.[^\s@<>]+)$/;

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const salesSettings = {
  TOP_UP_STARTS_PER_MINUTE: doc(
    positiveInt(5),
    'Top-up checkouts the customer portal may start in any 60 s for one key, and as many for one client address (IPv6 per /64; loopback addresses are not counted), in the shared rate store; past either, the portal answers 429 and Stripe is not called.',
    RUNNING,
  ),
  SOLD_SECRET_RETENTION_HOURS: doc(
    positiveInt(24),
    "A sold key's secret that the buyer's browser never showed is deleted this long after the purchase was fulfilled (the housekeeping sweep); the key stays, and the operator issues another if it was lost.",
    RUNNING,
  ),
  PORTAL_ENABLED: doc(
    z.enum(['true', 'false'], 'must be true or false').default('true'),
    'Whether the customer portal (/portal, /api/portal/*) is served; false: its pages and endpoints answer 404 (a method an endpoint never takes, 405) and no top-up can be bought.',
    RUNNING,
  ),
  SMTP_URL: doc(
    z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL, such as smtps://user:password@smtp.example.com:465')
      .optional(),
    "The SMTP server the buyer's e-mails go through (nodemailer's connection URL: smtp:// with STARTTLS when offered, smtps:// for TLS from the start, user and password in it). With MAIL_FROM, the portal confirms key rotations and webhook changes by a code e-mailed to the key's buyer; unset, the portal offers neither.",
    RUNNING,
  ),
  MAIL_FROM: doc(
    z.string().regex(SENDER, 'must be a sender such as "Example API <no-reply@example.com>" or no-reply@example.com').optional(),
    'The sender of those e-mails: an address, or a name and an address such as `Example API <no-reply@example.com>`; needed with SMTP_URL.',
    RUNNING,
  ),
  SUPPORT_CONTACT: doc(
    z.string().trim().min(1).max(200).optional(),
    "Whom customers ask (an e-mail address or a sentence), named by the portal where it cannot do something itself: without e-mail confirmation, and for a suspended key. Unset: 'the operator of this service'.",
    RUNNING,
  ),
};
