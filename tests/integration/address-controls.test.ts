import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import { startFakeStripe, type FakeStripe } from '../../fakes/fake-stripe';
import { createTestKey, type TestKey } from '../helpers/api';
import { parsePrometheusText } from '../helpers/prometheus-text';
import { packageForSale, WEBHOOK_SECRET } from './sales/support';
import { originAt, ownAddresses } from './support/product/addresses';
import {
  createDatabase,
  ensureBuild,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// Every per-address control, checked from outside through the real `npm start`, bound to every
// address and reached at this machine's own non-loopback addresses (192.0.2.2 and fd00::2 on the
// test machines), as a customer's client on the network reaches it. The IPv4 address is a client
// of its own; the IPv6 one is a client too, and also a proxy (TRUST_PROXY names it) with clients
// behind it (X-Forwarded-For, 198.51.100.x). The product serves nothing but this file's requests,
// so its metrics can be held to them exactly.

const LIMIT = 10; // AUTH_FAILURES_PER_MINUTE
const CHECKOUTS = 2; // CHECKOUT_STARTS_PER_MINUTE
const METRICS_TOKEN = 'address-controls-metrics-token';
const PASSWORD = 'the right password for this';

let database: TestDatabase;
let product: Product;
let fake: FakeStripe;
let key: TestKey;
let saleVersion: string;
let operator: string;
/** Every answer of GET /v1/key this file got, by status: the product's metrics must say the same. */
const keyAnswers: Record<number, number> = {};

interface Client {
  origin: string;
  forwardedFor?: string;
}
const addresses = ownAddresses();
const direct = (address: string): Client => ({ origin: originAt(address, product.port) });
const behindProxy = (client: string): Client => ({ origin: originAt(addresses.ipv6!, product.port), forwardedFor: client });
const badKey = () => `wgs_live_${randomBytes(30).toString('base64url').slice(0, 40)}`;

beforeAll(async () => {
  if (!addresses.ipv6) throw new Error('this machine has no IPv6 address besides loopback: the proxy and the second client need one');
  ensureBuild();
  fake = await startFakeStripe({ webhookSecret: WEBHOOK_SECRET });
  database = await createDatabase('wgs_addresses');
  await useDatabaseInThisProcess(database.url);
  product = await startProduct({
    databaseUrl: database.url,
    env: {
      HOST: '::',
      AUTH_FAILURES_PER_MINUTE: String(LIMIT),
      CHECKOUT_STARTS_PER_MINUTE: String(CHECKOUTS),
      TRUST_PROXY: addresses.ipv6,
      METRICS_TOKEN,
      LOG_FORMAT: 'off',
      STRIPE_SECRET_KEY: 'sk_test_address_controls',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.apiBase,
    },
  });
  key = await createTestKey({
    maxUploadBytes: 1024,
    operations: { 'text.generate': { engine: 'local', units: 1 }, 'images.generate': { engine: 'local', units: 1, input_uploads: true } },
  });
  ({ versionId: saleVersion } = await packageForSale());
  operator = `operator-${randomBytes(4).toString('hex')}@example.com`;
  await createOperator(getSqlDb(), CLI_ACTOR, { email: operator, password: PASSWORD, role: 'owner' });
}, 300_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

/** A request from `client`, never following a redirect; a forged x-wgs-client-address rides along, which must change nothing. */
async function send(client: Client, path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('x-wgs-client-address', '203.0.113.250');
  if (client.forwardedFor) headers.set('x-forwarded-for', client.forwardedFor);
  const response = await fetch(`${client.origin}${path}`, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  if (path === '/v1/key') keyAnswers[response.status] = (keyAnswers[response.status] ?? 0) + 1;
  return { status: response.status, headers: response.headers, text };
}

const readKey = (client: Client, secret: string) => send(client, '/v1/key', { headers: { authorization: `Bearer ${secret}` } });

const generate = (client: Client, secret: string) =>
  send(client, '/v1/text/generate', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${secret}`,
      'content-type': 'application/json',
      'idempotency-key': `addr-${randomBytes(6).toString('hex')}`,
    },
    body: JSON.stringify({ input: 'hello' }),
  });

const portalSignIn = (client: Client, secret: string) =>
  send(client, '/api/portal/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: client.origin },
    body: JSON.stringify({ secret }),
  });

/** The dashboard's sign-in form, as the browser posts it: where next-auth sends the browser next. */
async function dashboardSignIn(client: Client, password: string): Promise<string> {
  const csrf = await send(client, '/api/auth/csrf');
  const cookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const answer = await send(client, '/api/auth/callback/credentials', {
    method: 'POST',
    headers: { cookie, origin: client.origin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrfToken, email: operator, password, callbackUrl: '/' }),
  });
  expect(answer.status).toBe(302);
  return answer.headers.get('location') ?? '';
}

describe('failed authentications, one count per address for /v1, the portal and the dashboard', () => {
  it('30 unknown keys from one address, GET and POST: 401 up to the limit, then 429 for everything it tries', async () => {
    const a = direct(addresses.ipv4);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((i % 2 === 0 ? await readKey(a, badKey()) : await generate(a, badKey())).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(401), ...Array(30 - LIMIT).fill(429)]);
    const refused = await readKey(a, key.key); // its good key too: a guesser learns nothing more
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await generate(a, key.key)).status).toBe(429);
    // The portal's sign-in and the dashboard's sign-in refuse it too: the same count.
    expect((await portalSignIn(a, key.key)).status).toBe(429);
    expect(await dashboardSignIn(a, PASSWORD)).toContain('error=RateLimited');
  });

  it('another address is not affected: its good key is served, its bad key is a 401', async () => {
    const b = direct(addresses.ipv6!);
    expect((await readKey(b, key.key)).status).toBe(200);
    expect((await generate(b, key.key)).status).toBe(200);
    expect((await readKey(b, badKey())).status).toBe(401);
  });

  it("one client's failures behind a trusted proxy do not deny the other clients behind it", async () => {
    const c = behindProxy('198.51.100.7');
    for (let i = 0; i < LIMIT; i++) expect((await readKey(c, badKey())).status).toBe(401);
    expect((await readKey(c, key.key)).status).toBe(429);
    // What a client writes in front of its address changes nothing: the proxy's entry is the one believed.
    expect((await readKey(behindProxy('198.51.100.99, 198.51.100.7'), key.key)).status).toBe(429);
    expect((await readKey(behindProxy('198.51.100.8'), key.key)).status).toBe(200);
    expect((await portalSignIn(behindProxy('198.51.100.8'), key.key)).status).toBe(200);
  });

  it('sign-in failures and /v1 failures add up: 4 on /v1, 3 at the portal and 3 at the dashboard reach the limit', async () => {
    const e = behindProxy('198.51.100.20');
    for (let i = 0; i < 4; i++) expect((await generate(e, badKey())).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await portalSignIn(e, badKey())).status).toBe(401);
    for (let i = 0; i < 3; i++) expect(await dashboardSignIn(e, 'a wrong password')).toContain('error=CredentialsSignin');
    expect((await generate(e, key.key)).status).toBe(429);
    expect((await portalSignIn(e, key.key)).status).toBe(429);
    expect(await dashboardSignIn(e, PASSWORD)).toContain('error=RateLimited');
    // Its neighbour behind the same proxy signs in to both.
    const f = behindProxy('198.51.100.21');
    expect((await portalSignIn(f, key.key)).status).toBe(200);
    expect(await dashboardSignIn(f, PASSWORD)).not.toContain('error=');
  });
});

describe('checkout starts per address (CHECKOUT_STARTS_PER_MINUTE)', () => {
  const start = (client: Client) =>
    send(client, '/buy/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: client.origin },
      body: new URLSearchParams({ package_version_id: saleVersion }),
    });

  it('past the limit the catalogue says to try again and Stripe is not called; another address starts one', async () => {
    const a = direct(addresses.ipv4);
    for (let i = 0; i < CHECKOUTS; i++) expect((await start(a)).headers.get('location')).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
    const sessions = fake.sessions.size;
    const busy = await start(a);
    expect([busy.status, busy.headers.get('location')]).toEqual([303, `${a.origin}/buy?error=busy`]);
    expect(fake.sessions.size).toBe(sessions);
    expect((await start(behindProxy('198.51.100.30'))).headers.get('location')).toMatch(new RegExp(`^${fake.apiBase}/checkout/`));
  });
});

describe('body and upload caps', () => {
  const big = 'x'.repeat(2_000_000);
  const chunked = (size: number) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"input":"${'x'.repeat(size)}"}`));
        controller.close();
      },
    });
  const postTo = (client: Client, path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    send(client, path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
  const v1Headers = () => ({
    authorization: `Bearer ${key.key}`,
    'content-type': 'application/json',
    'idempotency-key': `cap-${randomBytes(6).toString('hex')}`,
  });

  it('a /v1 body over 1 MiB is 413, declared or chunked; a dashboard body over 1 MiB is 413, a chunked one 411', async () => {
    const b = direct(addresses.ipv6!);
    const declared = await postTo(b, '/v1/text/generate', JSON.stringify({ input: big }), v1Headers());
    expect([declared.status, JSON.parse(declared.text).error.code]).toEqual([413, 'payload_too_large']);
    const streamed = await postTo(b, '/v1/text/generate', chunked(1_100_000), v1Headers());
    expect([streamed.status, JSON.parse(streamed.text).error.code]).toEqual([413, 'payload_too_large']);
    const dashboard = { 'content-type': 'application/json', origin: b.origin };
    expect((await postTo(b, '/api/trpc/keys.revoke', big, dashboard)).status).toBe(413);
    expect((await postTo(b, '/api/trpc/keys.revoke', chunked(10), dashboard)).status).toBe(411);
  });

  it("an upload above the package's limit is refused at creation, and bytes beyond the declared size at the upload URL", async () => {
    const b = direct(addresses.ipv6!);
    const upload = (size: number) =>
      postTo(
        b,
        '/v1/uploads',
        JSON.stringify({ purpose: 'image_input', filename: 'a.png', mime_type: 'image/png', size_bytes: size, sha256: '0'.repeat(64) }),
        v1Headers(),
      );
    expect((await upload(2048)).status).toBe(413);
    const created = await upload(100);
    expect(created.status, created.text).toBe(201);
    const { upload_url: uploadUrl } = JSON.parse(created.text) as { upload_url: string };
    expect(uploadUrl.startsWith(`${b.origin}/uploads/`)).toBe(true);
    const put = (body: BodyInit) =>
      fetch(uploadUrl, { method: 'PUT', body, headers: { 'content-type': 'image/png' }, duplex: 'half' } as RequestInit);
    expect((await put(Buffer.alloc(200))).status).toBe(413);
    const streamed = await put(new Blob([Buffer.alloc(200)]).stream());
    expect(streamed.status).toBe(413);
  });
});

describe('Origin checks', () => {
  it("another site's POST is 403 at the dashboard's sign-in, the portal's, the checkout form and tRPC", async () => {
    const b = direct(addresses.ipv6!);
    const foreign = { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' };
    for (const path of ['/api/auth/callback/credentials', '/api/portal/session', '/buy/checkout', '/api/trpc/keys.revoke']) {
      const answer = await send(b, path, { method: 'POST', headers: foreign, body: 'a=1' });
      expect(answer.status, path).toBe(403);
    }
    // The same requests from the product's own pages go on (here: no session, so tRPC says who is missing).
    expect(
      (
        await send(b, '/api/trpc/keys.revoke', {
          method: 'POST',
          headers: { origin: b.origin, 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(401);
  });
});

describe('one copy of the server in the running product', () => {
  it("/metrics (served by Next) counts exactly what the API's app served: one metrics registry", async () => {
    const b = direct(addresses.ipv6!);
    const scrape = await send(b, '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scrape.status).toBe(200);
    const counted: Record<number, number> = {};
    for (const sample of parsePrometheusText(scrape.text).samples) {
      if (sample.name !== 'wgs_http_request_duration_seconds_count' || sample.labels.route !== '/v1/key') continue;
      counted[Number(sample.labels.status)] = (counted[Number(sample.labels.status)] ?? 0) + sample.value;
    }
    expect(counted).toEqual(keyAnswers);
    expect(keyAnswers[429]).toBeGreaterThan(0);
  });
});
