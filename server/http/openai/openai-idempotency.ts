import { getConfig } from '../../config';
import { getSqlDb } from '../../db/client';
import { findRetriedCall, implicitKey } from '../../domain/billing/implicit-keys';
import { requestFingerprint } from '../../domain/billing/idempotency-store';
import type { BillingRequest, Charge } from '../../domain/billing/reservation';
import { ApiError } from '../../domain/errors';
import { readIdempotencyKey } from '../headers';
import type { RouteContext } from '../route-context';

// Exactly once on the OpenAI-compatible surface (docs/openai-compatible.md#exactly-once). An
// Idempotency-Key, when sent, works as on /v1. Without one (the official SDKs send none), a first
// attempt (X-Stainless-Retry-Count absent or 0) claims a key of its own, so two calls with the same
// body are two calls, both run and both charged; a retry (count >= 1) takes the key of the latest
// call of the last lease with the same fingerprint, so it is answered by that call (its stored
// answer, or 409 while it runs) and never runs it again. A package may require the header instead.

/**
 * The SDK's retry number: 0 for a first attempt, a client that does not say, or a value that is not
 * a count in decimal digits (`0x1`, `1.0`, ` `: no SDK sends one, and a retry taken for one is never run).
 */
function retryCount(request: Request): number {
  const value = request.headers.get('x-stainless-retry-count') ?? '';
  return /^[0-9]+$/.test(value) ? Number(value) : 0;
}

/** The Idempotency-Key sent, if any (400 when malformed, or when the package requires one and none came). */
export function sentIdempotencyKey(ctx: RouteContext): string | undefined {
  if (ctx.request.headers.get('idempotency-key') !== null || ctx.key.openaiRequiresIdempotencyKey) {
    try {
      return readIdempotencyKey(ctx.request);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'missing_idempotency_key') {
        throw new ApiError('missing_idempotency_key', {
          message: "This key's package requires an Idempotency-Key header on every POST (docs/openai-compatible.md#exactly-once).",
        });
      }
      throw error;
    }
  }
  return undefined;
}

/** What billing needs to know of the request: the scope and fingerprint its key is claimed under. */
export async function openAIBillingRequest(
  ctx: RouteContext,
  sentKey: string | undefined,
  fingerprinted: unknown,
  charge: Charge | undefined,
): Promise<BillingRequest> {
  const path = new URL(ctx.request.url).pathname.replace(/\/+$/, '');
  const fingerprint = requestFingerprint('POST', path, fingerprinted);
  let key = sentKey;
  if (key === undefined && retryCount(ctx.request) > 0) {
    key = await findRetriedCall(getSqlDb(), ctx.key.id, fingerprint, getConfig().IDEMPOTENCY_LEASE_SECONDS);
  }
  const scope = { apiKeyId: ctx.key.id, method: 'POST', path, key: key ?? implicitKey(ctx.requestId) };
  return { key: ctx.key, requestId: ctx.requestId, scope, fingerprint, charge, surface: 'openai' };
}
