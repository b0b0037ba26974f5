import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import { waitSeconds } from '../rate-limit/request-rate';
import { windowStore } from '../rate-limit/sliding-window';

// Each resend is a POST to the customer's endpoint on the service's behalf: per API key, the
// resends of the last 60 s are counted in the rate store every instance shares (Redis with
// REDIS_URL, else PostgreSQL), whoever asked, an operator on the key page or the buyer in the
// portal, so neither a script nor a second instance multiplies them.

const WINDOW_SECONDS = 60;

/** Counts one resend of the key's deliveries, or throws 429 with Retry-After (nothing counted) past WEBHOOK_RESENDS_PER_MINUTE. */
export async function takeResend(db: SqlDb, apiKeyId: string): Promise<void> {
  const perMinute = getConfig().WEBHOOK_RESENDS_PER_MINUTE;
  const hit = await windowStore(db).take(`webhook-resend:${apiKeyId}`, perMinute, WINDOW_SECONDS);
  if (hit.allowed) return;
  throw new ApiError('rate_limited', {
    message: `At most ${perMinute} webhook resends a minute for this key: try again later.`,
    retryAfter: waitSeconds(hit.waitMs, WINDOW_SECONDS),
  });
}
