import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { Webhook } from 'standardwebhooks';
import { getConfig } from '../../config';
import { getPrisma, type SqlDb } from '../../db/client';
import { countWebhookAttempt } from '../../observability/metrics';
import { describeConnectionFailure } from '../../providers/outbound/connection-failure';
import { webhookUrlProblem } from './endpoint-address';
import { jobEventBody } from './job-events';
import { webhookDoor } from './webhook-door';
import { queueDeliveries } from './webhook-queue';
import { openWebhookSecret, sealLegacySecret } from './webhook-secrets';

// One attempt of a job webhook (Standard Webhooks): claim the delivery, POST the signed event
// through the webhooks' door (webhook-door.ts) with a total deadline and no redirect followed,
// then record the answer: delivered (2xx), retried on WEBHOOK_RETRY_SCHEDULE_SECONDS with the
// same webhook-id, or failed (attempts used up, or 410 Gone, which also disables the key's
// endpoint).

/** The whole attempt (connect, send, the answer's headers and what is read of its body) ends by then. */
export const DELIVERY_DEADLINE_MS = 15_000;
/** How long one attempt owns its delivery: longer than the deadline, so no two attempts overlap. */
export const CLAIM_SECONDS = 60;
/** The most of an answer's body read (and thrown away) before the connection is closed. */
export const ANSWER_BYTES_READ = 4096;
/** The longest Retry-After honoured. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

interface ClaimedDelivery {
  id: string;
  api_key_id: string;
  job_id: string;
  event_type: string;
  attempts: number;
  created_at: Date;
  webhook_url: string | null;
  /** Plain text written before secrets were sealed; sealed on first use. */
  legacy_secret: string | null;
  /** The sealed secret's columns (webhook_secrets), null when none is stored. */
  iv: Buffer | null;
  ciphertext: Buffer | null;
  auth_tag: Buffer | null;
  webhook_disabled_at: Date | null;
}

export interface AttemptAnswer {
  status?: number;
  retryAfterSeconds?: number;
  error?: string;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped' | 'not_due';

async function claim(db: SqlDb, deliveryId: string, due: string | null): Promise<ClaimedDelivery | null> {
  const { rows } = await db.pool.query<ClaimedDelivery>(
    prepared(
      'wgs-webhook-claim',
      sql`UPDATE webhook_deliveries d SET claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS}), updated_at = now()
             FROM api_keys k LEFT JOIN webhook_secrets s ON s.api_key_id = k.id
            WHERE d.id = ${deliveryId} AND k.id = d.api_key_id AND d.status = 'pending'
              AND d.next_attempt_at <= now() + interval '2 seconds'
              AND (${due}::timestamptz IS NULL OR d.next_attempt_at = ${due}::timestamptz)
              AND (d.claimed_until IS NULL OR d.claimed_until < now())
           RETURNING d.id, d.api_key_id, d.job_id, d.event_type, d.attempts, d.created_at,
                     k.webhook_url, k.webhook_secret AS legacy_secret, k.webhook_disabled_at, s.iv, s.ciphertext, s.auth_tag`,
    ),
  );
  return rows[0] ?? null;
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), if any. */
function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = /^\d+$/.test(text.trim()) ? Number(text.trim()) : (Date.parse(text) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_SECONDS) : undefined;
}

/**
 * POSTs the body through the webhooks' door; never follows a redirect (a 3xx is a failed attempt),
 * reads at most ANSWER_BYTES_READ of the answer, and gives up at `deadlineMs` whatever the
 * endpoint does (a trickle of bytes does not keep it going: a deadline, not an idle timeout). A
 * failure is said without any address the endpoint's name resolved to (connection-failure.ts).
 */
export async function postSigned(
  url: string,
  headers: Record<string, string>,
  body: string,
  deadlineMs = DELIVERY_DEADLINE_MS,
): Promise<AttemptAnswer> {
  const target = new URL(url);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`no complete answer within ${deadlineMs / 1000} s`)), deadlineMs);
  try {
    const response = await webhookDoor.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
      signal: deadline.signal,
    });
    const status = response.statusCode;
    const answer: AttemptAnswer = { status };
    if (status === 429 || status === 503) answer.retryAfterSeconds = retryAfterSeconds(response.headers['retry-after']);
    // undici's dump honours a signal (lib/api/readable.js), though its types do not say so.
    await response.body.dump({ limit: ANSWER_BYTES_READ, signal: deadline.signal } as { limit: number }).catch(() => {});
    return answer;
  } catch (error) {
    if (deadline.signal.aborted) return { error: (deadline.signal.reason as Error).message };
    return { error: describeConnectionFailure(error, target.host) };
  } finally {
    clearTimeout(timer);
  }
}

/** The delivery's signing secret: the sealed one, or a plain-text one from before, sealed now. */
async function signingSecretOf(delivery: ClaimedDelivery): Promise<string | null> {
  const { iv, ciphertext, auth_tag } = delivery;
  if (iv && ciphertext && auth_tag) return openWebhookSecret(delivery.api_key_id, { iv, ciphertext, auth_tag });
  if (delivery.legacy_secret) return sealLegacySecret(getPrisma(), delivery.api_key_id, delivery.legacy_secret);
  return null;
}

/** The delay before the attempt after `attempts` failed ones, with +-10% jitter; null when none is left. */
export function retryDelaySeconds(attempts: number, retryAfter?: number): number | null {
  const schedule = getConfig().WEBHOOK_RETRY_SCHEDULE_SECONDS;
  const base = schedule[attempts - 1];
  if (base === undefined) return null;
  const jittered = base * (0.9 + Math.random() * 0.2);
  return Math.max(jittered, retryAfter ?? 0);
}

async function settle(db: SqlDb, delivery: ClaimedDelivery, answer: AttemptAnswer): Promise<DeliveryOutcome> {
  const attempts = delivery.attempts + 1;
  const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
  const gone = answer.status === 410;
  const delay = ok || gone ? null : retryDelaySeconds(attempts, answer.retryAfterSeconds);
  const outcome: DeliveryOutcome = ok ? 'delivered' : delay === null ? 'failed' : 'retry';
  const error = answer.error ?? (ok ? null : `HTTP ${answer.status}`);
  const status = outcome === 'retry' ? 'pending' : outcome;
  const settled = await db.pool.query<{ due: string | null }>(
    prepared(
      'wgs-webhook-settle',
      sql`UPDATE webhook_deliveries SET status = ${status}, attempts = ${attempts}, last_status = ${answer.status ?? null}, last_error = ${error?.slice(0, 500) ?? null},
                  next_attempt_at = CASE WHEN ${delay}::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => ${delay}::float8) END,
                  delivered_at = CASE WHEN ${status} = 'delivered' THEN now() ELSE delivered_at END,
                  claimed_until = NULL, updated_at = now()
            WHERE id = ${delivery.id}
        RETURNING next_attempt_at::text AS due`,
    ),
  );
  if (gone) {
    // The endpoint said it is gone for good: nothing more is sent to it until it is set again.
    await db.pool.query(
      prepared(
        'wgs-webhook-disable',
        sql`UPDATE api_keys SET webhook_disabled_at = now() WHERE id = ${delivery.api_key_id} AND webhook_url = ${delivery.webhook_url} AND webhook_disabled_at IS NULL`,
      ),
    );
  }
  countWebhookAttempt(outcome === 'delivered' ? 'delivered' : outcome === 'retry' ? 'retry' : 'failed');
  if (delay !== null) await queueDeliveries([delivery.id], delay, settled.rows[0]?.due ?? undefined);
  return outcome;
}

/** Runs one attempt of a delivery (the queue's handler) for the round `due` names (WebhookMessage). Safe to run twice for one message. */
export async function deliverWebhook(db: SqlDb, deliveryId: string, due?: string): Promise<DeliveryOutcome> {
  const delivery = await claim(db, deliveryId, due ?? null);
  if (!delivery) return 'not_due';
  const secret = await signingSecretOf(delivery).catch((error: unknown) => {
    console.error(`[webhooks] ${(error as Error).message}`);
    return undefined;
  });
  if (secret === undefined) return settle(db, delivery, { error: 'the signing secret cannot be decrypted with this PROVIDER_KEYS_SECRET' });
  if (!delivery.webhook_url || !secret || delivery.webhook_disabled_at) {
    await db.pool.query(
      prepared(
        'wgs-webhook-skip',
        sql`UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, claimed_until = NULL, updated_at = now() WHERE id = ${delivery.id}`,
      ),
    );
    return 'skipped';
  }
  const body = jobEventBody(delivery);
  // The customer reads this record too (the portal's deliveries): no operator setting is named in it.
  const problem = webhookUrlProblem(delivery.webhook_url, 'customer');
  let answer: AttemptAnswer;
  if (problem) {
    answer = { error: `the endpoint URL ${problem}` };
  } else {
    const timestamp = new Date();
    const signature = new Webhook(secret).sign(delivery.id, timestamp, body);
    answer = await postSigned(
      delivery.webhook_url,
      {
        'webhook-id': delivery.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
        'user-agent': 'wgs-webhooks/1',
      },
      body,
    );
  }
  return settle(db, delivery, answer);
}
