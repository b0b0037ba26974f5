import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../../setup/test-database';
import { Agent, fetch as undiciFetch } from 'undici';
import { getPrisma } from '@/server/db/client';
import { startFakeStripe, type FakeStripe, type FakeStripeOptions } from '../../../fakes/fake-stripe';
import { codeIn, startSmtpInbox, type SmtpInbox } from '../../helpers/smtp-inbox';
import {
  createDatabase,
  ensureBuild,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from '../support/product/product';
import { packageForSale, WEBHOOK_SECRET } from './support';

// Selling and its abuse through the running product: `npm start`'s server, called from this
// machine's non-loopback address 192.0.2.2 as a buyer's browser would, against the fake Stripe and
// a real SMTP server on 127.0.0.1. Stripe's calls are counted on the fake; e-mails read from the server.

const CLIENT = '192.0.2.2';
// undici hands `connect` to net.connect, which takes the local address to connect from.
const client = new Agent({ connect: { localAddress: CLIENT } as unknown as Agent.Options['connect'] });
const stripeOptions: FakeStripeOptions = { webhookSecret: WEBHOOK_SECRET };
let database: TestDatabase;
let product: Product;
let fake: FakeStripe;
let inbox: SmtpInbox;
let base: string;
let versionId: string;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_selling');
  await useDatabaseInThisProcess(database.url);
  fake = await startFakeStripe(stripeOptions);
  inbox = await startSmtpInbox();
  ({ versionId } = await packageForSale());
  product = await startProduct({
    databaseUrl: database.url,
    env: {
      HOST: '0.0.0.0',
      STRIPE_SECRET_KEY: 'sk_test_product',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.apiBase,
      SMTP_URL: inbox.url,
      MAIL_FROM: 'Seller <no-reply@seller.example>',
      TOP_UP_STARTS_PER_MINUTE: '2',
      CHECKOUT_STARTS_PER_MINUTE: '100',
    },
  });
  base = `http://${CLIENT}:${product.port}`;
}, 300_000);
afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await inbox?.close();
  await client.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

/** A request from 192.0.2.2, redirects left to the caller. */
async function from(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const response = await undiciFetch(`${base}${path}`, { ...init, redirect: 'manual', dispatcher: client });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const sessionReads = (sessionId: string) =>
  fake.calls.filter((c) => c.method === 'GET' && c.path === `/v1/checkout/sessions/${sessionId}`).length;
const webhookUrl = () => `http://127.0.0.1:${product.port}/api/stripe/webhook`;
const purchaseOf = (sessionId: string) => getPrisma().purchase.findUniqueOrThrow({ where: { stripeSessionId: sessionId } });

/** The catalogue's "Buy" form: the session Stripe's page is for and the reveal cookie. */
async function buy() {
  const started = await from('/buy/checkout', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ package_version_id: versionId }).toString(),
  });
  expect(started.status).toBe(303);
  const setCookie = started.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(/^__Host-wgs_checkout=[A-Za-z0-9_-]{43}; Path=\/; Secure; HttpOnly; SameSite=Lax/);
  return { sessionId: started.headers.get('location')!.split('/').at(-1)!, cookie: setCookie.split(';')[0]! };
}

const success = (sessionId: string, cookie?: string) => from(`/buy/success?session_id=${sessionId}`, { headers: cookie ? { cookie } : {} });
const revealedKey = (html: string) => html.match(/data-testid="purchased-key">(wgs_live_[A-Za-z0-9]+)</)?.[1];
const generate = (key: string) =>
  from('/v1/text/generate', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `t-${Math.random()}` },
    body: JSON.stringify({ input: 'hello' }),
  });

async function paidKey(email = 'buyer@example.com') {
  const bought = await buy();
  fake.pay(bought.sessionId, { email });
  expect(await fake.deliver(fake.events.completed(bought.sessionId), webhookUrl())).toBe(200);
  const key = revealedKey((await success(bought.sessionId, bought.cookie)).text);
  if (!key) throw new Error('the success page showed no key');
  return { ...bought, key };
}

describe("selling's and the portal's routes through npm start", () => {
  it("says at start that Checkout's return URLs follow each request's origin while PUBLIC_BASE_URL is unset (sales audit)", () => {
    expect(product.output()).toContain('notice: selling is on and PUBLIC_BASE_URL is unset');
  });

  it('answer a method they do not serve 405 in the envelope, with Allow (Next answered it bare)', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/api/stripe/webhook', 'POST'],
      ['PUT', '/api/portal/session', 'POST, DELETE'],
      ['DELETE', '/api/portal/trpc/overview', 'GET, HEAD, POST'],
      ['DELETE', '/api/trpc/keys.list', 'GET, HEAD, POST'],
      ['GET', '/buy/checkout', 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await from(path, { method });
      expect([answer.status, answer.headers.get('allow'), answer.headers.get('cache-control')], `${method} ${path}`).toEqual([
        405,
        allow,
        'no-store',
      ]);
      expect(JSON.parse(answer.text).error).toMatchObject({ code: 'method_not_allowed', request_id: expect.stringMatching(/^req_/) });
    }
  });
  it('refuse a signed body that is no Stripe event 400, saying why, never 500 (sales audit: a signed `null` was a 500)', async () => {
    const deliverSigned = async (body: Buffer) => {
      const t = Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', WEBHOOK_SECRET)
        .update(Buffer.concat([Buffer.from(`${t}.`), body]))
        .digest('hex');
      const headers = { 'content-type': 'application/json', 'stripe-signature': `t=${t},v1=${v1}` };
      const response = await undiciFetch(webhookUrl().replace('127.0.0.1', CLIENT), { method: 'POST', headers, body, dispatcher: client });
      return [response.status, ((await response.json()) as { error: { message: string } }).error.message];
    };
    expect(await deliverSigned(Buffer.from('null'))).toEqual([400, 'The body is no Stripe event.']);
    // Signed, not JSON: it said the signature did not verify.
    expect(await deliverSigned(Buffer.from('not json'))).toEqual([400, 'The body is signed but is not JSON.']);
  });
});

describe('the success page through npm start', () => {
  it('asks Stripe only for the buying browser, at most once every few seconds; a cookie the browser brings is not adopted', async () => {
    const bought = await buy();
    const again = await from('/buy/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie: bought.cookie },
      body: new URLSearchParams({ package_version_id: versionId }).toString(),
    });
    expect(again.headers.get('set-cookie')!.split(';')[0]).not.toBe(bought.cookie);
    await Promise.all(Array.from({ length: 15 }, () => success(bought.sessionId)));
    await Promise.all(Array.from({ length: 15 }, () => success(bought.sessionId, '__Host-wgs_checkout=' + 'A'.repeat(43))));
    expect(sessionReads(bought.sessionId)).toBe(0);
    await Promise.all(Array.from({ length: 15 }, () => success(bought.sessionId, bought.cookie)));
    expect(sessionReads(bought.sessionId)).toBe(1);
    fake.pay(bought.sessionId);
    await expect
      .poll(async () => revealedKey((await success(bought.sessionId, bought.cookie)).text), { timeout: 20_000, interval: 1000 })
      .toMatch(/^wgs_live_/);
    expect(sessionReads(bought.sessionId)).toBe(2);
  });
});

describe('expiry, disputes, refunds and amounts through npm start', () => {
  it('expires a purchase by checkout.session.expired, and by the sweep after expires_at', async () => {
    const byEvent = await buy();
    expect(await fake.deliver(fake.events.expired(byEvent.sessionId), webhookUrl())).toBe(200);
    expect((await success(byEvent.sessionId, byEvent.cookie)).text).toContain('data-testid="checkout-expired"');
    stripeOptions.sessionSeconds = 1;
    try {
      const bySweep = await buy();
      await expect.poll(async () => (await purchaseOf(bySweep.sessionId)).status, { timeout: 60_000, interval: 1000 }).toBe('expired');
    } finally {
      delete stripeOptions.sessionSeconds;
    }
  }, 90_000);

  it('a dispute before fulfilment suspends the key it issues; /v1 refuses it with 401 invalid_api_key', async () => {
    const bought = await buy();
    fake.pay(bought.sessionId);
    expect(await fake.deliver(fake.events.disputeCreated(bought.sessionId), webhookUrl())).toBe(200);
    expect(await fake.deliver(fake.events.completed(bought.sessionId), webhookUrl())).toBe(200);
    const key = revealedKey((await success(bought.sessionId, bought.cookie)).text)!;
    const refused = await generate(key);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).error.code).toBe('invalid_api_key');
  });

  it('a dispute after fulfilment suspends a working key', async () => {
    const { key, sessionId } = await paidKey();
    expect((await generate(key)).status).toBe(200);
    expect(await fake.deliver(fake.events.disputeCreated(sessionId), webhookUrl())).toBe(200);
    await expect.poll(async () => (await generate(key)).status, { timeout: 5_000 }).toBe(401);
  });

  it('refuses a payment of another amount, issues nothing and alerts the operator', async () => {
    const bought = await buy();
    fake.pay(bought.sessionId);
    fake.sessions.get(bought.sessionId)!.amount_total = 1;
    expect(await fake.deliver(fake.events.completed(bought.sessionId), webhookUrl())).toBe(200);
    expect((await success(bought.sessionId, bought.cookie)).text).toContain('data-testid="checkout-refused"');
    expect(await purchaseOf(bought.sessionId)).toMatchObject({ status: 'refused', apiKeyId: null });
    await expect.poll(() => product.output(), { timeout: 5_000 }).toContain('"msg":"sales alert"');
  });
});

describe('the portal through npm start', () => {
  async function signIn(key: string) {
    const response = await from('/api/portal/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ secret: key }),
    });
    expect(response.status).toBe(200);
    return response.headers.get('set-cookie')!.split(';')[0]!;
  }
  async function procedure(cookie: string, name: string, input: unknown) {
    const response = await from(`/api/portal/trpc/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, cookie },
      body: JSON.stringify(input),
    });
    return { status: response.status, body: JSON.parse(response.text) as { result?: { data: Record<string, string> }; error?: unknown } };
  }

  it('limits top-up checkouts per key; a refunded top-up takes its unspent units back, refund first or last', async () => {
    const { key } = await paidKey();
    const cookie = await signIn(key);
    const first = await procedure(cookie, 'buyTopUp', { units: 1000 });
    const second = await procedure(cookie, 'buyTopUp', { units: 1000 });
    expect([first.status, second.status]).toEqual([200, 200]);
    const created = fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').length;
    expect((await procedure(cookie, 'buyTopUp', { units: 1000 })).status).toBe(429);
    expect(fake.calls.filter((c) => c.method === 'POST' && c.path === '/v1/checkout/sessions').length).toBe(created);
    const sessionOf = (started: typeof first) => started.body.result!.data.url!.split('/').at(-1)!;
    const refundFirst = sessionOf(first);
    const refundLast = sessionOf(second);
    fake.pay(refundFirst);
    fake.pay(refundLast);
    expect(await fake.deliver(fake.events.refunded(refundFirst), webhookUrl())).toBe(200);
    expect(await fake.deliver(fake.events.completed(refundFirst), webhookUrl())).toBe(200);
    expect(await fake.deliver(fake.events.completed(refundLast), webhookUrl())).toBe(200);
    expect(await fake.deliver(fake.events.refunded(refundLast), webhookUrl())).toBe(200);
    const keyId = (await purchaseOf(refundFirst)).apiKeyId!;
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: keyId } })).toMatchObject({ remainingUnits: 500 });
    expect((await purchaseOf(refundFirst)).unitsReclaimed).toBe(1000);
    expect((await purchaseOf(refundLast)).unitsReclaimed).toBe(1000);
  });

  it('rotates the key and sets the webhook only with the code e-mailed to the buyer, who is told of each change', async () => {
    const owner = `owner-${Date.now()}@example.com`;
    const { key } = await paidKey(owner);
    const cookie = await signIn(key);
    const mailed = inbox.mailTo(owner).length;
    // A member named twice is refused as /v1 refuses it, not read as its last (outside audit): no code is sent.
    const repeated = await from('/api/portal/trpc/requestChange', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, cookie },
      body: '{"action":"set_webhook","url":"https://a.example.com/x","url":"https://hooks.example.com/wgs"}',
    });
    expect([repeated.status, JSON.parse(repeated.text).error.message]).toEqual([400, 'The request body repeats the member "url".']);
    expect(inbox.mailTo(owner)).toHaveLength(mailed);
    expect((await procedure(cookie, 'requestChange', { action: 'set_webhook', url: 'https://hooks.example.com/wgs' })).status).toBe(200);
    const webhookCode = codeIn(await inbox.waitForMail(owner, 1));
    const set = await procedure(cookie, 'confirmChange', { code: webhookCode });
    expect(set.body.result!.data).toMatchObject({
      action: 'set_webhook',
      url: 'https://hooks.example.com/wgs',
      secret: expect.stringMatching(/^whsec_/),
    });

    expect((await inbox.waitForMail(owner, 2)).text).toContain('job webhook endpoint was set');
    const before = inbox.mailTo(owner).length;
    expect((await procedure(cookie, 'requestChange', { action: 'rotate_key' })).status).toBe(200);
    const mail = await inbox.waitForMail(owner, before + 1);
    expect((await procedure(cookie, 'confirmChange', { code: 'ZZZZ-ZZZZ' })).status).toBe(422);
    expect((await generate(key)).status).toBe(200);
    const rotated = await procedure(cookie, 'confirmChange', { code: codeIn(mail) });
    const secret = rotated.body.result!.data.secret!;
    expect((await generate(key)).status).toBe(401);
    expect((await generate(secret)).status).toBe(200);
    const notice = await inbox.waitForMail(owner, before + 2);
    expect(notice.text).toContain("Your API key's secret was replaced");
  });
});
