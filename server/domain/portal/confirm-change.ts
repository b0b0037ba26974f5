import { randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { sha256Hex } from '../canonical-json';
import { ApiError } from '../errors';
import { keyInactivity } from '../key-status';
import { waitSeconds } from '../rate-limit/request-rate';
import { windowStore } from '../rate-limit/sliding-window';
import { clearKeyWebhook, rotateKeyWebhookSecret, setKeyWebhook } from '../webhooks/manage-webhook';
import { webhookUrlProblem } from '../webhooks/endpoint-address';
import { changeNoticeText, mailChangeNotice, mailConfirmationCode, type OwnershipChange } from './owner-mail';
import type { PortalSession } from './portal-session';
import { confirmationsAvailable, maskEmail, supportContact } from './portal-settings';
import { customerActor, rotateKeySecret } from './rotate-key';

// A leaked key must not take the account: what changes who controls the key (its secret, its job
// webhook) is asked for in the portal and done only when the one-time code e-mailed to the key's
// buyer is entered, in the same portal session, within CODE_MINUTES and MAX_ATTEMPTS tries.
// Only the code's SHA-256 is stored; a new request replaces the session's pending one.

export const CODE_MINUTES = 15;
export const MAX_ATTEMPTS = 5;
/** Codes one key may have e-mailed in any hour: the buyer's mailbox is not a target either. */
const REQUESTS_PER_HOUR = 10;
// 32 letters and digits without 0, 1, I and O, which read alike: 8 of them are 40 bits.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export type ConfirmedChange =
  | { action: 'rotate_key'; secret: string; prefix: string }
  | { action: 'set_webhook' | 'rotate_webhook_secret'; url: string; secret: string }
  | { action: 'clear_webhook' };

export function newConfirmationCode(): string {
  const chars = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/** What the customer typed, as the code was made: upper case, without spaces or the dash. */
export const normaliseCode = (typed: string): string => typed.toUpperCase().replace(/[^A-Z0-9]/g, '');

const codeHash = (confirmationId: string, code: string) => sha256Hex(`${confirmationId}:${normaliseCode(code)}`);

async function changeableKey(db: PrismaClient, session: PortalSession) {
  const key = await db.apiKey.findUniqueOrThrow({ where: { id: session.apiKeyId } });
  const inactive = keyInactivity(key);
  if (inactive) {
    throw new ApiError('forbidden', { message: `This key is ${inactive}: ask ${supportContact()}.` });
  }
  if (!confirmationsAvailable(key.buyerEmail)) {
    const why = key.buyerEmail === null ? 'this key has none here' : 'this service cannot send e-mail';
    throw new ApiError('forbidden', {
      message: `Changes to this key are confirmed by e-mail to its buyer, and ${why}: ask ${supportContact()}.`,
    });
  }
  return { ...key, buyerEmail: key.buyerEmail! };
}

function checkChange(change: OwnershipChange, url: string | undefined, webhookUrl: string | null): void {
  if (change === 'set_webhook') {
    const problem = url ? webhookUrlProblem(url, 'customer') : 'is missing';
    if (problem) throw ApiError.validation([{ path: 'url', code: 'invalid_webhook_url', message: `the webhook URL ${problem}` }]);
  } else if (change !== 'rotate_key' && !webhookUrl) {
    throw ApiError.validation([{ path: 'action', code: 'no_webhook', message: 'the key has no webhook endpoint' }]);
  }
}

/** E-mails a code for the change to the key's buyer; returns where it went (masked) and until when it works. */
export async function requestChange(
  db: PrismaClient,
  sql: SqlDb,
  session: PortalSession,
  input: { action: OwnershipChange; url?: string },
): Promise<{ sent_to: string; expires_at: string }> {
  const key = await changeableKey(db, session);
  checkChange(input.action, input.url, key.webhookUrl);
  const hit = await windowStore(sql).take(`confirm:${key.id}`, REQUESTS_PER_HOUR, 3600);
  if (!hit.allowed) {
    throw new ApiError('rate_limited', {
      message: `Too many confirmation codes were sent for this key (${REQUESTS_PER_HOUR} an hour). Try again later.`,
      retryAfter: waitSeconds(hit.waitMs, 3600),
    });
  }
  const id = randomUUID();
  const code = newConfirmationCode();
  const expiresAt = new Date(Date.now() + CODE_MINUTES * 60_000);
  const webhookUrl = input.action === 'set_webhook' ? input.url! : null;
  // The new code replaces the session's pending one, unless its e-mail cannot be sent (then nothing changed).
  const replaced = (
    await db.portalConfirmation.findMany({ where: { portalSessionId: session.sessionId, usedAt: null }, select: { id: true } })
  ).map((row) => row.id);
  await db.$transaction([
    db.portalConfirmation.updateMany({ where: { id: { in: replaced }, usedAt: null }, data: { usedAt: new Date() } }),
    db.portalConfirmation.create({
      data: {
        id,
        portalSessionId: session.sessionId,
        apiKeyId: key.id,
        action: input.action,
        webhookUrl,
        codeHash: codeHash(id, code),
        expiresAt,
      },
    }),
  ]);
  const mail = { to: key.buyerEmail, keyPrefix: key.prefix, change: input.action, webhookUrl, code, minutes: CODE_MINUTES };
  await mailConfirmationCode({ ...mail, contact: supportContact() }).catch(async (error: unknown) => {
    await db.$transaction([
      db.portalConfirmation.delete({ where: { id } }),
      db.portalConfirmation.updateMany({ where: { id: { in: replaced } }, data: { usedAt: null } }),
    ]);
    throw error;
  });
  return { sent_to: maskEmail(key.buyerEmail), expires_at: expiresAt.toISOString() };
}

const wrongCode = (message: string) => ApiError.validation([{ path: 'code', code: 'wrong_code', message }]);

/** Checks the code of the session's pending change and, once it matches, makes the change (once). */
async function consumeCode(db: PrismaClient, session: PortalSession, typed: string) {
  const pending = await db.portalConfirmation.findFirst({
    where: { portalSessionId: session.sessionId, usedAt: null, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: 'desc' },
  });
  if (!pending) throw wrongCode('no change is waiting for a code in this session (or its code expired): ask again');
  const tried = await db.portalConfirmation.updateMany({
    where: { id: pending.id, usedAt: null, attempts: { lt: MAX_ATTEMPTS } },
    data: { attempts: { increment: 1 } },
  });
  const expected = Buffer.from(pending.codeHash, 'hex');
  const given = Buffer.from(codeHash(pending.id, typed), 'hex');
  if (tried.count === 0 || !timingSafeEqual(expected, given)) {
    const left = MAX_ATTEMPTS - pending.attempts - 1;
    if (left <= 0) await db.portalConfirmation.update({ where: { id: pending.id }, data: { usedAt: new Date() } });
    throw wrongCode(left > 0 ? `that is not the code (${left} ${left === 1 ? 'try' : 'tries'} left)` : 'too many wrong codes: ask again');
  }
  const used = await db.portalConfirmation.updateMany({ where: { id: pending.id, usedAt: null }, data: { usedAt: new Date() } });
  if (used.count === 0) throw wrongCode('this code was used already: ask again');
  return pending;
}

export async function confirmChange(db: PrismaClient, sqlDb: SqlDb, session: PortalSession, typed: string): Promise<ConfirmedChange> {
  const key = await changeableKey(db, session);
  const pending = await consumeCode(db, session, typed);
  const actor = customerActor(session.apiKeyId, session.keyPrefix);
  const change = pending.action as OwnershipChange;
  let result: ConfirmedChange;
  if (change === 'rotate_key') result = { action: change, ...(await rotateKeySecret(sqlDb, actor, key.id, session.keyHash)) };
  else if (change === 'set_webhook') result = { action: change, ...(await setKeyWebhook(db, actor, key.id, pending.webhookUrl!)) };
  else if (change === 'rotate_webhook_secret') result = { action: change, ...(await rotateKeyWebhookSecret(db, actor, key.id)) };
  else {
    await clearKeyWebhook(db, actor, key.id);
    result = { action: change };
  }
  const text = changeNoticeText(change, pending.webhookUrl);
  await mailChangeNotice({
    to: key.buyerEmail,
    keyPrefix: result.action === 'rotate_key' ? result.prefix : key.prefix,
    text,
    contact: supportContact(),
  });
  return result;
}
