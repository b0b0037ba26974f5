import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { Agent, request } from 'undici';
import { createTestKey } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { books, createDatabase, ensureBuild, newKey, useDatabaseInThisProcess, type TestDatabase } from './support/product/product';
import { freePort, killAllRunning, productionEnv, startProduction, waitServing } from './support/product/production';

// SIGTERM under steady load (the production command, a real PostgreSQL): the listener closes,
// /readyz answers 503 at once, every request the instance took is answered (200, or 503 with
// nothing charged when the grace ran out under it), no connection is reset, the process exits 0
// and the books balance.

const TEXT = '/v1/text/generate';
const GRACE_SECONDS = 3;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fast: FakeOpenAi;
let hanging: FakeOpenAi;
let database: TestDatabase;

beforeAll(async () => {
  ensureBuild();
  [fast, hanging] = await Promise.all([startFakeOpenAi(), startFakeOpenAi()]);
  fast.setMode({ kind: 'slow', ms: 100 });
  hanging.setMode({ kind: 'hang' });
  database = await createDatabase('wgs_drain');
  await useDatabaseInThisProcess(database.url);
}, 300_000);

afterAll(async () => {
  killAllRunning();
  await Promise.all([fast?.close(), hanging?.close()]);
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

type Outcome = { status: number; code?: string; connection?: string } | { error: string };

async function paid(agent: Agent, base: string, apiKey: string): Promise<Outcome> {
  try {
    const response = await request(`${base}${TEXT}`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': newKey('drain') },
      body: JSON.stringify({ input: 'steady load' }),
    });
    const body = (await response.body.json()) as { error?: { code: string } };
    return { status: response.statusCode, code: body.error?.code, connection: String(response.headers.connection ?? '') };
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

describe('SIGTERM under steady load', () => {
  it('answers every request it took (200, or 503 with nothing charged), resets no connection, exits 0, and the books balance', async () => {
    const quota = 100_000;
    const provider = (fake: FakeOpenAi) => ({ type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY' });
    const steady = await createTestKey({
      quota,
      providers: { 'drain-fast': provider(fast) },
      operations: { 'text.generate': { engine: 'drain-fast:steady', units: 2, output_formats: ['text'] } },
    });
    const stuck = await createTestKey({
      quota,
      providers: { 'drain-hang': provider(hanging) },
      operations: { 'text.generate': { engine: 'drain-hang:stuck', units: 3, output_formats: ['text'] } },
    });
    const port = await freePort();
    const app = startProduction({
      ...productionEnv(database.url, port),
      SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      WGS_PROVIDER_KEY_FAKE_PROVIDER_KEY: 'sk-fake-drain',
      PROVIDER_TIMEOUT_MS: '60000',
      PROVIDER_MAX_RETRIES: '0',
      LOG_FORMAT: 'off',
    });
    await waitServing(app);

    const agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
    const probe = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
    expect((await request(`${app.base}/readyz`, { dispatcher: probe }).then((r) => r.body.json())) as unknown).toMatchObject({
      status: 'ready',
    });

    // Steady load on keep-alive connections, and two requests whose provider never answers.
    const outcomes: Outcome[] = [];
    let stopped = false;
    const loops = Array.from({ length: 8 }, async () => {
      while (!stopped) {
        const outcome = await paid(agent, app.base, steady.key);
        outcomes.push(outcome);
        if ('error' in outcome) return;
      }
    });
    const stuckReplies = [paid(agent, app.base, stuck.key), paid(agent, app.base, stuck.key)];
    for (let i = 0; i < 200 && (hanging.active < 2 || outcomes.length < 40); i++) await sleep(25);
    expect(hanging.active).toBe(2);
    const before = outcomes.length;

    app.child.kill('SIGTERM');
    for (let i = 0; i < 200 && !app.output().includes('SIGTERM: shutting down'); i++) await sleep(5);
    // The probe's connection was idle when the stop began: it still carries one request.
    const readyz = await request(`${app.base}/readyz`, { dispatcher: probe });
    expect(readyz.statusCode).toBe(503);
    expect(await readyz.body.json()).toMatchObject({ status: 'draining' });
    // A new connection is refused (not reset): a proxy sends that request elsewhere.
    expect(await paid(new Agent(), app.base, steady.key)).toEqual({ error: 'ECONNREFUSED' });

    const exit = await app.exited;
    stopped = true;
    await Promise.all(loops);
    const cut = await Promise.all(stuckReplies);
    await Promise.all([agent.close(), probe.close()]);

    expect(exit, app.output()).toEqual({ code: 0, signal: null });
    expect(app.output()).toContain('2 engine call(s) cut short');
    expect(outcomes.length).toBeGreaterThan(before); // requests in flight at the signal were answered
    const answered = outcomes.filter((outcome): outcome is Exclude<Outcome, { error: string }> => !('error' in outcome));
    const errors = outcomes.filter((outcome): outcome is { error: string } => 'error' in outcome);
    expect(answered.every((outcome) => outcome.status === 200)).toBe(true);
    // Each loop ended on a new connection the closed listener refused; none was reset.
    expect(errors).toEqual(Array.from({ length: 8 }, () => ({ error: 'ECONNREFUSED' })));
    // Requests in flight when the stop began were answered, each closing its connection after it.
    expect(answered.filter((outcome) => outcome.connection === 'close').length).toBeGreaterThan(0);
    expect(cut).toEqual([
      { status: 503, code: 'provider_unavailable', connection: 'close' },
      { status: 503, code: 'provider_unavailable', connection: 'close' },
    ]);

    expect(await books(database.url, steady.id)).toMatchObject({
      remaining: quota - 2 * answered.length,
      captured: answered.length,
      succeeded: answered.length,
      held: 0,
      released: 0,
      inFlight: 0,
    });
    expect(await books(database.url, stuck.id)).toMatchObject({ remaining: quota, captured: 0, held: 0, released: 2, inFlight: 0 });
  });
});
