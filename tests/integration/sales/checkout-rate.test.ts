import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as checkoutStart } from '@/app/buy/checkout/route';
import { resetConfigForTests } from '@/server/config';
import { servingConnection } from '@/server/auth/connection';
import { disconnectDb, getPrisma } from '@/server/db/client';
import type { FakeStripe } from '../../../fakes/fake-stripe';
import { BASE } from '../../helpers/api';
import { packageForSale, turnSellingOff, turnSellingOn } from './support';

// /buy asks for no account, and each checkout start calls Stripe and writes a purchase: one
// client address may start CHECKOUT_STARTS_PER_MINUTE of them in any 60 s.

let fake: FakeStripe;
let versionId: string;

beforeAll(async () => {
  fake = await turnSellingOn();
  process.env.CHECKOUT_STARTS_PER_MINUTE = '2';
  resetConfigForTests();
  ({ versionId } = await packageForSale());
});
afterAll(async () => {
  delete process.env.CHECKOUT_STARTS_PER_MINUTE;
  turnSellingOff();
  await fake.close();
  await disconnectDb();
});

/** The checkout form's POST as Next calls it under npm start: inside the connection (from `address`) it came on. */
async function startFrom(address: string): Promise<string> {
  const request = new Request(`${BASE}/buy/checkout`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: BASE },
    body: new URLSearchParams({ package_version_id: versionId }),
  });
  const response = await servingConnection({ peerAddress: address, target: '/buy/checkout' }, () => checkoutStart(request));
  expect(response.status).toBe(303);
  return response.headers.get('location')!;
}

const sessionsCreated = () => fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').length;

describe('checkout starts per client address', () => {
  it('past the limit, /buy says to try again and neither Stripe nor the database is touched', async () => {
    const address = `203.0.113.${randomInt(1, 250)}`;
    expect(await startFrom(address)).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
    expect(await startFrom(address)).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
    const [sessions, purchases] = [sessionsCreated(), await getPrisma().purchase.count()];
    expect(await startFrom(address)).toBe(`${BASE}/buy?error=busy`);
    expect(sessionsCreated()).toBe(sessions);
    expect(await getPrisma().purchase.count()).toBe(purchases);
  });

  it('counts each address (IPv6 per /64) on its own, and never a loopback address', async () => {
    const [a, b] = ['2001:db8:1:2::1', '2001:db8:1:2::ffff'];
    await startFrom(a);
    await startFrom(b);
    expect(await startFrom(a)).toBe(`${BASE}/buy?error=busy`); // the same /64
    expect(await startFrom('2001:db8:1:3::1')).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
    for (let i = 0; i < 3; i++) expect(await startFrom('127.0.0.1')).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
  });
});
