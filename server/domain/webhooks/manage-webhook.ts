import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { keyInactivity } from '../key-status';
import { isUuid } from '../uuid';
import { getSqlDb } from '../../db/client';
import { endpointHost, webhookUrlProblem } from './endpoint-address';
import { takeResend } from './resend-rate';
import { queueDeliveries } from './webhook-queue';
import { deleteWebhookSecret, storeWebhookSecret } from './webhook-secrets';

// An operator gives a key a webhook endpoint (CLI and dashboard): set (a new secret, shown
// once), rotate the secret, clear; the key page lists its latest deliveries and resends one
// (WEBHOOK_RESENDS_PER_MINUTE per key, the portal's resends counted with the dashboard's).
// The secret is stored sealed (webhook-secrets.ts) and never written to the audit log; an
// endpoint's path and query (which often carry a token) are shown to admins and owners only:
// viewers and the audit log see its host.

export interface KeyWebhook {
  /** The whole endpoint URL: null for a viewer (who sees `host`), or when no webhook is set. */
  url: string | null;
  /** The endpoint's host (and port), what every role sees. */
  host: string | null;
  disabled_at: string | null;
}

export interface DeliveryView {
  id: string;
  job_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
}

/** `whsec_` + base64 of 32 random bytes, the Standard Webhooks form. */
function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

async function keyOrThrow(db: PrismaClient, keyId: string) {
  const key = isUuid(keyId) ? await db.apiKey.findUnique({ where: { id: keyId } }) : null;
  if (!key) throw keyNotFound(keyId);
  return key;
}

/** Sets the key's endpoint with a new signing secret (returned once) and enables it. */
export async function setKeyWebhook(db: PrismaClient, actor: Actor, keyId: string, url: string): Promise<{ url: string; secret: string }> {
  const problem = webhookUrlProblem(url);
  if (problem) throw ApiError.validation([{ path: 'url', code: 'invalid_webhook_url', message: `the webhook URL ${problem}` }]);
  const before = await keyOrThrow(db, keyId);
  // Such a key runs no jobs, so it has no events to send (dashboard audit: the form took one and showed a secret).
  const inactive = keyInactivity(before);
  if (inactive) {
    const message = `API key ${keyId} is ${inactive}: it runs no jobs, so it takes no webhook endpoint.`;
    throw ApiError.validation([{ path: 'id', code: `key_${inactive}`, message }], message);
  }
  const secret = newWebhookSecret();
  await db.$transaction(async (tx) => {
    await tx.apiKey.update({ where: { id: keyId }, data: { webhookUrl: url, webhookDisabledAt: null } });
    await storeWebhookSecret(tx, keyId, secret);
    await recordAudit(tx, actor, {
      action: 'key.webhook.set',
      targetType: 'api_key',
      targetId: keyId,
      before: { webhook_host: endpointHost(before.webhookUrl) },
      after: { webhook_host: endpointHost(url) },
    });
  });
  return { url, secret };
}

/** A new signing secret for the key's endpoint (returned once); the old one stops signing at once. */
export async function rotateKeyWebhookSecret(db: PrismaClient, actor: Actor, keyId: string): Promise<{ url: string; secret: string }> {
  const key = await keyOrThrow(db, keyId);
  if (!key.webhookUrl) throw ApiError.validation([{ path: 'id', code: 'no_webhook', message: 'the key has no webhook endpoint' }]);
  const secret = newWebhookSecret();
  await db.$transaction(async (tx) => {
    await storeWebhookSecret(tx, keyId, secret);
    await recordAudit(tx, actor, { action: 'key.webhook.rotate', targetType: 'api_key', targetId: keyId });
  });
  return { url: key.webhookUrl, secret };
}

/** Removes the endpoint; deliveries still pending are skipped. A key without one is left as it is, unaudited (as a second revoke). */
export async function clearKeyWebhook(db: PrismaClient, actor: Actor, keyId: string): Promise<void> {
  const before = await keyOrThrow(db, keyId);
  if (before.webhookUrl === null && before.webhookSecret === null && (await db.webhookSecret.count({ where: { apiKeyId: keyId } })) === 0)
    return;
  await db.$transaction(async (tx) => {
    await tx.apiKey.update({ where: { id: keyId }, data: { webhookUrl: null, webhookSecret: null, webhookDisabledAt: null } });
    await deleteWebhookSecret(tx, keyId);
    // Skipped now, not when their next attempt comes: one waiting out a Retry-After went to the
    // endpoint set next, another owner's perhaps. One being sent ends as its attempt does.
    const now = new Date();
    await tx.webhookDelivery.updateMany({
      where: { apiKeyId: keyId, status: 'pending', OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }] },
      data: { status: 'skipped', nextAttemptAt: null, claimedUntil: null, updatedAt: now },
    });
    await recordAudit(tx, actor, {
      action: 'key.webhook.clear',
      targetType: 'api_key',
      targetId: keyId,
      before: { webhook_host: endpointHost(before.webhookUrl) },
    });
  });
}

/** The key's endpoint; `wholeUrl` false (a viewer) leaves out everything but its host. */
export async function getKeyWebhook(db: PrismaClient, keyId: string, wholeUrl: boolean): Promise<KeyWebhook> {
  const key = await keyOrThrow(db, keyId);
  return {
    url: wholeUrl ? key.webhookUrl : null,
    host: endpointHost(key.webhookUrl),
    disabled_at: key.webhookDisabledAt?.toISOString() ?? null,
  };
}

/**
 * The job webhook panel of a key, the same on the key's dashboard page and in its portal: the
 * endpoint (whole for an admin or the key's holder, its host for a viewer) and the latest deliveries.
 */
export async function keyWebhookPanel(db: PrismaClient, keyId: string, wholeUrl: boolean) {
  const [webhook, deliveries] = await Promise.all([getKeyWebhook(db, keyId, wholeUrl), listKeyDeliveries(db, keyId, 20)]);
  return { ...webhook, deliveries };
}

/** The key's latest deliveries, newest first. */
export async function listKeyDeliveries(db: PrismaClient, keyId: string, limit = 20): Promise<DeliveryView[]> {
  const rows = await db.webhookDelivery.findMany({
    where: { apiKeyId: keyId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: Math.min(Math.max(limit, 1), 100),
  });
  return rows.map((row) => ({
    id: row.id,
    job_id: row.jobId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    last_status: row.lastStatus,
    last_error: row.lastError,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  }));
}

/** Sends a delivery again now (same webhook-id, a fresh round of attempts); 400 with no endpoint to send to, 429 past the key's resends per minute. */
export async function resendDelivery(db: PrismaClient, actor: Actor, keyId: string, deliveryId: string): Promise<void> {
  const notFound = () => new ApiError('not_found', { message: `No delivery "${deliveryId}" for this key.` });
  const delivery = await db.webhookDelivery.findFirst({
    where: { id: deliveryId, apiKeyId: keyId },
    select: { apiKey: { select: { webhookUrl: true, webhookDisabledAt: true } } },
  });
  if (!delivery) throw notFound();
  // A resend to no endpoint, or to one that answered 410 Gone, would be skipped unsent: say so instead.
  const { webhookUrl, webhookDisabledAt } = delivery.apiKey;
  if (webhookUrl === null || webhookDisabledAt !== null) {
    const why = webhookUrl === null ? 'this key has no webhook endpoint' : 'its endpoint answered 410 Gone and is disabled';
    throw new ApiError('invalid_request', { message: `Nothing to resend to: ${why}. Set the endpoint again, then resend.` });
  }
  await takeResend(getSqlDb(), keyId);
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, apiKeyId: keyId },
    data: { status: 'pending', attempts: 0, nextAttemptAt: new Date(), claimedUntil: null, updatedAt: new Date() },
  });
  if (count === 0) throw notFound();
  await recordAudit(db, actor, {
    action: 'key.webhook.resend',
    targetType: 'api_key',
    targetId: keyId,
    after: { delivery_id: deliveryId },
  });
  await queueDeliveries([deliveryId]);
}
