import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import { waitSeconds } from '../rate-limit/request-rate';
import { addressGroup } from '../rate-limit/auth-failures';
import { windowStore } from '../rate-limit/sliding-window';

// Each Checkout Session costs a call to Stripe and a purchase row. Checkout starts are counted in
// the rate store every instance shares (PostgreSQL, or Redis with REDIS_URL), in sliding windows of
// 60 s: /buy's per client address (it asks for no account), the portal's top-ups per key and per
// address, so neither a script nor a leaked key can open thousands. Addresses count IPv6 per /64;
// a loopback address is not counted: it is the host itself or a proxy on it (without
// TRUST_PROXY), whose requests are every buyer's.

const WINDOW_SECONDS = 60;

/** Counts one checkout start of the address; false when its last 60 s already hold `perMinute`. */
export async function takeCheckoutStart(db: SqlDb, address: string, perMinute: number): Promise<boolean> {
  const group = addressGroup(address);
  if (!group) return true;
  const hit = await windowStore(db).take(`checkout:${group}`, perMinute, WINDOW_SECONDS);
  return hit.allowed;
}

/** Counts one top-up checkout of the key and of the address, or throws 429 (nothing counted) past either. */
export async function takeTopUpStart(db: SqlDb, input: { keyId: string; address: string; perMinute: number }): Promise<void> {
  const store = windowStore(db);
  const keyWindow = `topup-key:${input.keyId}`;
  const byKey = await store.take(keyWindow, input.perMinute, WINDOW_SECONDS);
  if (!byKey.allowed) throw refusal('this key', input.perMinute, byKey.waitMs);
  const group = addressGroup(input.address);
  if (!group) return;
  const byAddress = await store.take(`topup-address:${group}`, input.perMinute, WINDOW_SECONDS);
  if (byAddress.allowed) return;
  await store.giveBack(keyWindow).catch(() => {});
  throw refusal('your network', input.perMinute, byAddress.waitMs);
}

function refusal(whose: string, perMinute: number, waitMs: number): ApiError {
  return new ApiError('rate_limited', {
    message: `Too many top-up checkouts were started for ${whose} (${perMinute} a minute); nothing was charged. Try again in a minute.`,
    retryAfter: waitSeconds(waitMs, WINDOW_SECONDS),
  });
}
