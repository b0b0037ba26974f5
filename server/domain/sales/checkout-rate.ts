import type { SqlDb } from '../../db/client';
import { addressGroup } from '../rate-limit/auth-failures';
import { windowStore } from '../rate-limit/sliding-window';

// Each Checkout Session costs a call to Stripe and a purchase row, and /buy asks for no
// account: per client address (IPv6 per /64) the starts are counted in the rate store every
// instance shares, so a script cannot open thousands. A loopback address is not counted: it is
// the host itself or a proxy on it (without TRUST_PROXY), whose requests are every buyer's.

const WINDOW_SECONDS = 60;

/** Counts one checkout start of the address; false when its last 60 s already hold `perMinute`. */
export async function takeCheckoutStart(db: SqlDb, address: string, perMinute: number): Promise<boolean> {
  const group = addressGroup(address);
  if (!group) return true;
  const hit = await windowStore(db).take(`checkout:${group}`, perMinute, WINDOW_SECONDS);
  return hit.allowed;
}
