import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { Agent, fetch } from 'undici';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import { keyOnFreshPackage } from './portal/portal-helpers';
import {
  createDatabase,
  ensureBuild,
  freePort,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// Webhooks on the outbound side through the running product (`npm start`), as an operator's
// browser and a buyer's would use it, from this machine's non-loopback address 192.0.2.2: the
// dashboard refuses `localhost.` and its kin when an endpoint is saved (a validation error, 422),
// resends are limited per key with the dashboard's and the portal's counted together, and what
// a failed delivery shows names the endpoint's host, never the address its name resolved to.

const CLIENT_ADDRESS = '192.0.2.2';
const client = new Agent({ localAddress: CLIENT_ADDRESS });
const PASSWORD = 'a long enough password for the product test';

let database: TestDatabase;

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_hookout');
  await useDatabaseInThisProcess(database.url);
}, 240_000);

afterAll(async () => {
  killAllProducts();
  await client.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

/** `npm start` on every interface, its public address the non-loopback one the client uses. */
async function startOnClientAddress(env: Record<string, string>): Promise<{ product: Product; base: string }> {
  const port = await freePort();
  const base = `http://${CLIENT_ADDRESS}:${port}`;
  const product = await startProduct({
    databaseUrl: database.url,
    port,
    env: { HOST: '0.0.0.0', NEXTAUTH_URL: base, NEXTAUTH_SECRET: 'webhook-outbound-product-test-nextauth', ...env },
  });
  return { product, base };
}

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  retryAfter: string | null;
}

/** A request from 192.0.2.2 with the browser's same-origin header and the session's cookies. */
async function send(base: string, path: string, init: { method?: string; body?: string; cookie?: string; type?: string } = {}) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    body: init.body,
    redirect: 'manual',
    dispatcher: client,
    headers: {
      origin: base,
      ...(init.body ? { 'content-type': init.type ?? 'application/json' } : {}),
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
  });
  const text = await response.text();
  const cookies = response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .join('; ');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, cookies, retryAfter: response.headers.get('retry-after') } as Answer & { cookies: string };
}

/** Signs an operator in through next-auth's credentials form, as the sign-in page does. */
async function operatorSession(base: string): Promise<string> {
  const email = `hooks-${Date.now()}@example.com`;
  await createOperator(getSqlDb(), CLI_ACTOR, { email, password: PASSWORD, role: 'owner' });
  const csrf = await send(base, '/api/auth/csrf');
  const form = new URLSearchParams({ csrfToken: csrf.json.csrfToken, email, password: PASSWORD, json: 'true' });
  const signIn = await send(base, '/api/auth/callback/credentials', {
    method: 'POST',
    body: form.toString(),
    type: 'application/x-www-form-urlencoded',
    cookie: csrf.cookies,
  });
  expect(signIn.cookies, 'a session cookie').toMatch(/session-token=/);
  return `${csrf.cookies}; ${signIn.cookies}`;
}

async function portalSession(base: string, secret: string): Promise<string> {
  const signIn = await send(base, '/api/portal/session', { method: 'POST', body: JSON.stringify({ secret }) });
  expect(signIn.status).toBe(200);
  return signIn.cookies;
}

/** A tRPC call over HTTP (no transformer: the input is the body, the answer `result.data` or `error`). */
const trpc = (base: string, procedure: string, input: unknown, cookie: string, endpoint = '/api/trpc') =>
  send(base, `${endpoint}/${procedure}`, { method: 'POST', body: JSON.stringify(input), cookie });

async function pendingDelivery(apiKeyId: string): Promise<string> {
  const compact = apiKeyId.replace(/-/g, '');
  const id = `msg_${compact}`;
  await getPool().query(
    `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, status, attempts, last_status, last_error)
     VALUES ($1, $2, $3, 'job.succeeded', 'failed', 8, 500, 'HTTP 500')`,
    [id, apiKeyId, `job_${compact.slice(0, 24)}`],
  );
  return id;
}

describe('npm start, endpoints public only (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset), 3 resends a minute', () => {
  let base: string;
  let product: Product;
  beforeAll(async () => {
    ({ base, product } = await startOnClientAddress({ WEBHOOK_RESENDS_PER_MINUTE: '3' }));
  }, 240_000);
  afterAll(() => product?.stop());

  it('refuses localhost. (and localhost, a private address in hex, a name outside the public DNS) with 422 validation_error naming the host', async () => {
    const cookie = await operatorSession(base);
    const key = await keyOnFreshPackage('hookproduct');
    for (const url of ['https://localhost./hook', 'https://localhost/hook', 'https://0x7f.0.0.1/hook', 'https://hooks.internal/hook']) {
      const refused = await trpc(base, 'keys.setWebhook', { id: key.id, url }, cookie);
      expect(refused.status, url).toBe(422);
      expect(refused.json.error.data.code, url).toBe('UNPROCESSABLE_CONTENT');
      expect(refused.json.error.message, url).toMatch(/^the webhook URL must name a public host: \S+ is /);
    }
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).webhookUrl).toBeNull();
    const saved = await trpc(base, 'keys.setWebhook', { id: key.id, url: 'https://hooks.example.com/wgs' }, cookie);
    expect(saved.status).toBe(200);
  });

  it("limits resends per key: the dashboard's and the portal's count together; past it 429 with the delivery untouched", async () => {
    const cookie = await operatorSession(base);
    const key = await keyOnFreshPackage('hookproduct');
    expect((await trpc(base, 'keys.setWebhook', { id: key.id, url: 'https://hooks.example.com/wgs' }, cookie)).status).toBe(200);
    const deliveryId = await pendingDelivery(key.id);
    const portal = await portalSession(base, key.secret);
    const fromDashboard = () => trpc(base, 'keys.resendDelivery', { id: key.id, deliveryId }, cookie);
    const fromPortal = () => trpc(base, 'resendDelivery', { deliveryId }, portal, '/api/portal/trpc');

    expect((await fromDashboard()).status).toBe(200);
    expect((await fromPortal()).status).toBe(200);
    expect((await fromDashboard()).status).toBe(200);
    await getPool().query(`UPDATE webhook_deliveries SET status = 'failed', attempts = 8 WHERE id = $1`, [deliveryId]);
    for (const refused of [await fromPortal(), await fromDashboard()]) {
      expect(refused.status).toBe(429);
      expect(refused.json.error.data.code).toBe('TOO_MANY_REQUESTS');
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1); // when a place frees, as api.md says
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    }
    const { rows } = await getPool().query('SELECT status, attempts FROM webhook_deliveries WHERE id = $1', [deliveryId]);
    expect(rows[0]).toEqual({ status: 'failed', attempts: 8 });
  });
});

describe('npm start with its worker, private endpoints allowed (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)', () => {
  let base: string;
  let product: Product;
  beforeAll(async () => {
    ({ base, product } = await startOnClientAddress({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RUN_WORKER: 'true' }));
  }, 240_000);
  afterAll(() => product?.stop());

  it('a failed delivery shows the endpoint host and why, never the address its name resolved to', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const cookie = await operatorSession(base);
    const key = await keyOnFreshPackage('hookproduct');
    const url = `http://localhost:${closed}/hook`;
    expect((await trpc(base, 'keys.setWebhook', { id: key.id, url }, cookie)).status).toBe(200);
    const deliveryId = await pendingDelivery(key.id);
    const portal = await portalSession(base, key.secret);
    expect((await trpc(base, 'resendDelivery', { deliveryId }, portal, '/api/portal/trpc')).status).toBe(200);

    // The product's worker makes the attempt; both the portal and the dashboard then show it.
    let shown: { attempts: number; last_error: string | null } | undefined;
    for (let tries = 0; tries < 300 && !(shown && shown.attempts > 0); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      shown = (await send(base, '/api/portal/trpc/webhook', { cookie: portal })).json.result.data.deliveries[0];
    }
    const expected = `could not deliver to localhost:${closed}: the connection was refused (ECONNREFUSED)`;
    expect(shown).toMatchObject({ attempts: 1, last_error: expected });
    const dashboard = await send(base, `/api/trpc/keys.webhook?input=${encodeURIComponent(JSON.stringify({ id: key.id }))}`, { cookie });
    expect(dashboard.json.result.data.deliveries[0].last_error).toBe(expected);
    expect(JSON.stringify(dashboard.json)).not.toMatch(/127\.0\.0\.1|::1|ECONNREFUSED [0-9]/);
  });
});
