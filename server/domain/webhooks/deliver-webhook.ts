import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import { countWebhookAttempt } from '../../observability/metrics';
import { publicOnlyLookup, webhookUrlProblem } from './endpoint-address';
import { jobEventBody } from './job-events';
import { queueDeliveries } from './webhook-queue';

// One attempt of a job webhook (Standard Webhooks): claim the delivery, POST the signed event
// with a 15 s timeout and no redirect followed, then record the answer: delivered (2xx), retried
// on WEBHOOK_RETRY_SCHEDULE_SECONDS with the same webhook-id, or failed (attempts used up, or
// 410 Gone, which also disables the key's endpoint).

const TIMEOUT_MS = 15_000;
/** How long one attempt owns its delivery (longer than the timeout). */
const CLAIM_SECONDS = 60;
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
  webhook_secret: string | null;
  webhook_disabled_at: Date | null;
}

export interface AttemptAnswer {
  status?: number;
  retryAfterSeconds?: number;
  error?: string;
}

export type DeliveryOutcome = 'delivered' | 'retry' | 'failed' | 'skipped' | 'not_due';

async function claim(db: SqlDb, deliveryId: string): Promise<ClaimedDelivery | null> {
  const { rows } = await db.pool.query<ClaimedDelivery>({
    name: 'wgs-webhook-claim',
    text: `UPDATE webhook_deliveries d SET claimed_until = now() + make_interval(secs => $2), updated_at = now()
             FROM api_keys k
            WHERE d.id = $1 AND k.id = d.api_key_id AND d.status = 'pending'
              AND d.next_attempt_at <= now() + interval '2 seconds'
              AND (d.claimed_until IS NULL OR d.claimed_until < now())
           RETURNING d.id, d.api_key_id, d.job_id, d.event_type, d.attempts, d.created_at,
                     k.webhook_url, k.webhook_secret, k.webhook_disabled_at`,
    values: [deliveryId, CLAIM_SECONDS],
  });
  return rows[0] ?? null;
}

/** Seconds of a Retry-After header (delta-seconds or an HTTP date), if any. */
function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = /^\d+$/.test(text.trim()) ? Number(text.trim()) : (Date.parse(text) - Date.now()) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_SECONDS) : undefined;
}

/** POSTs the body; never follows a redirect (a 3xx is a failed attempt) and reads at most a little of the answer. */
export function postSigned(url: string, headers: Record<string, string>, body: string): Promise<AttemptAnswer> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        lookup: publicOnlyLookup as never,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume(); // the answer's body is not needed
        const status = res.statusCode ?? 0;
        const answer: AttemptAnswer = { status };
        if (status === 429 || status === 503) answer.retryAfterSeconds = retryAfterSeconds(res.headers['retry-after']);
        resolve(answer);
        res.on('error', () => {});
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
    req.on('error', (error) => resolve({ error: error.message }));
    req.end(body);
  });
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
  await db.pool.query({
    name: 'wgs-webhook-settle',
    text: `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_status = $4, last_error = $5,
                  next_attempt_at = CASE WHEN $6::float8 IS NULL THEN NULL ELSE now() + make_interval(secs => $6::float8) END,
                  delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END,
                  claimed_until = NULL, updated_at = now()
            WHERE id = $1`,
    values: [delivery.id, outcome === 'retry' ? 'pending' : outcome, attempts, answer.status ?? null, error?.slice(0, 500) ?? null, delay],
  });
  if (gone) {
    // The endpoint said it is gone for good: nothing more is sent to it until it is set again.
    await db.pool.query({
      name: 'wgs-webhook-disable',
      text: 'UPDATE api_keys SET webhook_disabled_at = now() WHERE id = $1 AND webhook_url = $2 AND webhook_disabled_at IS NULL',
      values: [delivery.api_key_id, delivery.webhook_url],
    });
  }
  countWebhookAttempt(outcome === 'delivered' ? 'delivered' : outcome === 'retry' ? 'retry' : 'failed');
  if (delay !== null) await queueDeliveries([delivery.id], delay);
  return outcome;
}

/** Runs one attempt of a delivery (the queue's handler). Safe to run twice for one message. */
export async function deliverWebhook(db: SqlDb, deliveryId: string): Promise<DeliveryOutcome> {
  const delivery = await claim(db, deliveryId);
  if (!delivery) return 'not_due';
  if (!delivery.webhook_url || !delivery.webhook_secret || delivery.webhook_disabled_at) {
    await db.pool.query({
      name: 'wgs-webhook-skip',
      text: `UPDATE webhook_deliveries SET status = 'skipped', next_attempt_at = NULL, claimed_until = NULL, updated_at = now() WHERE id = $1`,
      values: [delivery.id],
    });
    return 'skipped';
  }
  const body = jobEventBody(delivery);
  const problem = webhookUrlProblem(delivery.webhook_url);
  let answer: AttemptAnswer;
  if (problem) {
    answer = { error: `the endpoint URL ${problem}` };
  } else {
    const timestamp = new Date();
    const signature = new Webhook(delivery.webhook_secret).sign(delivery.id, timestamp, body);
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
