import { z } from 'zod';
import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { legacySoldKeyLabel, SOLD_KEY_LABEL } from '../sales/sold-key-label';
import { isUuid } from '../uuid';
import { mailChangeNotice } from './owner-mail';
import { confirmationsAvailable, supportContact } from './portal-settings';

// The key's buyer's e-mail confirms what changes who controls the key (confirm-change.ts). Stripe
// gives it for a key sold through Checkout; an operator sets or changes it (dashboard, CLI), and
// the address it had is told, so a changed address cannot pass unnoticed.

const email = z.email().max(254);

/** What the dashboard shows of a key's buyer: the e-mail that confirms its changes, and its suspension. */
export async function keyOwner(
  db: PrismaClient,
  keyId: string,
): Promise<{ buyer_email: string | null; suspended: boolean; suspended_at: string | null }> {
  const key = isUuid(keyId)
    ? await db.apiKey.findUnique({ where: { id: keyId }, select: { buyerEmail: true, status: true, suspendedAt: true } })
    : null;
  if (!key) throw keyNotFound(keyId);
  return { buyer_email: key.buyerEmail, suspended: key.status === 'suspended', suspended_at: key.suspendedAt?.toISOString() ?? null };
}

export async function setBuyerEmail(
  db: PrismaClient,
  actor: Actor,
  keyId: string,
  value: string | null,
): Promise<{ id: string; buyer_email: string | null }> {
  const next = value?.trim() || null;
  if (next !== null && !email.safeParse(next).success) {
    throw ApiError.validation([{ path: 'email', code: 'invalid_email', message: 'must be an e-mail address such as buyer@example.com' }]);
  }
  const before = isUuid(keyId) ? await db.apiKey.findUnique({ where: { id: keyId } }) : null;
  if (!before) throw keyNotFound(keyId);
  if (before.buyerEmail === next) return { id: keyId, buyer_email: next };
  // A key sold before the label left the e-mail out still names its old buyer there: that goes too.
  const label = before.buyerEmail && before.label === legacySoldKeyLabel(before.buyerEmail) ? SOLD_KEY_LABEL : undefined;
  await db.$transaction(async (tx) => {
    await tx.apiKey.update({ where: { id: keyId }, data: { buyerEmail: next, ...(label ? { label } : {}) } });
    await recordAudit(tx, actor, {
      action: 'key.email',
      targetType: 'api_key',
      targetId: keyId,
      before: { buyer_email: before.buyerEmail },
      after: { buyer_email: next, ...(label ? { label } : {}) },
    });
  });
  const notices = [
    {
      to: before.buyerEmail,
      text: next
        ? `The e-mail that confirms changes to your API key is now ${next}, set by the operator.`
        : 'Your API key no longer has an e-mail that confirms its changes: the operator removed it.',
    },
    { to: next, text: 'This address now confirms changes to the API key below (its secret and its job webhook), set by the operator.' },
  ];
  for (const notice of notices) {
    if (notice.to && confirmationsAvailable(notice.to)) {
      await mailChangeNotice({ to: notice.to, keyPrefix: before.prefix, text: notice.text, contact: supportContact() });
    }
  }
  return { id: keyId, buyer_email: next };
}
