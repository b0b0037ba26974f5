import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { textGenerateResponse } from '@/server/contract/generation';
import { resetConfigForTests } from '@/server/config';
import { getPool } from '@/server/db/client';
import { forgetCircuitSnapshot } from '@/server/domain/providers/provider-circuit';
import { currentMetrics, enableMetrics } from '@/server/observability/metrics';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { FALLBACK_KEY_ENV, twoFakeProviders } from './support/providers/two-fake-providers';
import { REPO_ROOT, childEnv, track } from './support/processes';

// Engine lists: the next engine answers when one fails in a way another provider may not
// share, the customer pays once, and the usage event names the engines; a provider that keeps
// failing is skipped by every process on the database (the circuit breaker).

const CIRCUIT_FAILURES = 2;
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.PROVIDER_TIMEOUT_MS = '800';
process.env[FALLBACK_KEY_ENV] = 'sk-fallback-test';
process.env.PROVIDER_CIRCUIT_FAILURES = String(CIRCUIT_FAILURES);
process.env.PROVIDER_CIRCUIT_OPEN_SECONDS = '600';
// Each request re-reads the circuits, as a second instance would after its refresh interval.
process.env.PROVIDER_CIRCUIT_REFRESH_MS = '0';
resetConfigForTests();

const TEXT = '/v1/text/generate';
const { fakes, keyFor: fallbackKey } = twoFakeProviders();

async function usageOf(keyId: string) {
  const { rows } = await getPool().query<{
    outcome: string;
    units: number;
    engine: string;
    engines_tried: string[];
    error_code: string | null;
  }>('SELECT outcome::text, units, engine, engines_tried, error_code FROM usage_events WHERE api_key_id = $1 ORDER BY created_at', [keyId]);
  return rows;
}

describe('engine fallbacks', () => {
  it('a 503 from the first engine: the second answers, the customer is charged once, the usage event names both', async () => {
    const { key, id, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'status', status: 503 });
    const result = await call(api, TEXT, { input: 'hello' }, { key });
    expect(result.status, result.text).toBe(200);
    const body = textGenerateResponse.parse(result.json);
    expect(body.output.text).toBe('fake answer from model-b');
    expect(body.usage).toEqual({ charged_units: 3, remaining_units: 97 });
    expect([fakes.first.callCount, fakes.second.callCount]).toEqual([1, 1]);
    expect(await remainingUnits(id)).toBe(97);
    expect(await usageOf(id)).toEqual([
      {
        outcome: 'succeeded',
        units: 3,
        engine: `${names.b}:model-b`,
        engines_tried: [`${names.a}:model-a`, `${names.b}:model-b`],
        error_code: null,
      },
    ]);
  });

  it('a timeout and a 429 fall back too; a healthy first engine is the only one called', async () => {
    const { key, id, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    // (A success between the two failures keeps the first provider's circuit closed.)
    fakes.first.setMode({ kind: 'hang' });
    expect((await call(api, TEXT, { input: 'one' }, { key })).status).toBe(200);
    fakes.first.setMode({ kind: 'ok' });
    expect((await call(api, TEXT, { input: 'two' }, { key })).status).toBe(200);
    fakes.first.setMode({ kind: 'status', status: 429 });
    expect((await call(api, TEXT, { input: 'three' }, { key })).status).toBe(200);
    expect(fakes.second.callCount).toBe(2);
    expect((await usageOf(id)).map((event) => [event.engine, event.engines_tried.length])).toEqual([
      [`${names.b}:model-b`, 2],
      [`${names.a}:model-a`, 1],
      [`${names.b}:model-b`, 2],
    ]);
    expect(await remainingUnits(id)).toBe(91);
  });

  it("a request the provider refused (400, 'rejected') is not sent to the next: 503, nothing charged", async () => {
    const { key, id, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'status', status: 400 });
    const result = await call(api, TEXT, { input: 'hello' }, { key });
    expectEnvelope(result, 503, 'provider_unavailable');
    expect(fakes.second.callCount).toBe(0);
    expect(await remainingUnits(id)).toBe(100);
    expect(await usageOf(id)).toEqual([
      {
        outcome: 'failed',
        units: 0,
        engine: `${names.a}:model-a`,
        engines_tried: [`${names.a}:model-a`],
        error_code: 'provider_unavailable',
      },
    ]);
  });

  it('every engine failing: 503 provider_unavailable with Retry-After, nothing charged, both engines recorded', async () => {
    const { key, id, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'status', status: 500 });
    fakes.second.setMode({ kind: 'garbage' });
    const result = await call(api, TEXT, { input: 'hello' }, { key });
    expectEnvelope(result, 503, 'provider_unavailable');
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await remainingUnits(id)).toBe(100);
    expect(await usageOf(id)).toEqual([
      {
        outcome: 'failed',
        units: 0,
        engine: `${names.b}:model-b`,
        engines_tried: [`${names.a}:model-a`, `${names.b}:model-b`],
        error_code: 'provider_unavailable',
      },
    ]);
  });

  it('a fallback to the local engine answers offline', async () => {
    const { key, id, names } = await fallbackKey(({ a }) => [`${a}:model-a`, 'local']);
    fakes.first.setMode({ kind: 'status', status: 502 });
    const result = await call(api, TEXT, { input: 'hello' }, { key });
    expect(result.status, result.text).toBe(200);
    expect((await usageOf(id))[0]).toMatchObject({ engine: 'local', engines_tried: [`${names.a}:model-a`, 'local'] });
  });
});

function runProbe(engineName: string, count: number): Promise<{ failures: number }> {
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, ['--import', 'tsx', 'tests/integration/support/providers/circuit-probe.ts', engineName, String(count)], {
        cwd: REPO_ROOT,
        env: childEnv({
          DATABASE_URL: process.env.DATABASE_URL!,
          WGS_PROVIDER_KEY_FALLBACK_KEY: 'sk-fallback-test',
          PROVIDER_MAX_RETRIES: '0',
          PROVIDER_CIRCUIT_FAILURES: String(CIRCUIT_FAILURES),
          PROVIDER_CIRCUIT_OPEN_SECONDS: '600',
          PROVIDER_CIRCUIT_REFRESH_MS: '0',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(JSON.parse(stdout.trim().split('\n').at(-1)!)) : reject(new Error(`probe exited ${code}: ${stderr}`)),
    );
  });
}

describe('the circuit breaker, shared through the database', () => {
  it('a provider that failed in a row in another process is skipped here: no call, the fallback answers', async () => {
    const { key, id, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'status', status: 503 });
    expect(await runProbe(`${names.a}:model-a`, CIRCUIT_FAILURES)).toEqual({ failures: CIRCUIT_FAILURES });
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES);
    const { rows } = await getPool().query(
      'SELECT consecutive_failures, open_until > now() AS open FROM provider_circuits WHERE provider = $1',
      [names.a],
    );
    expect(rows).toEqual([{ consecutive_failures: CIRCUIT_FAILURES, open: true }]);

    fakes.first.setMode({ kind: 'ok' }); // healthy again, but its circuit is open: not called until it closes
    const result = await call(api, TEXT, { input: 'hello' }, { key });
    expect(result.status, result.text).toBe(200);
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES);
    expect(fakes.second.callCount).toBe(1);
    expect(await usageOf(id)).toEqual([
      {
        outcome: 'succeeded',
        units: 3,
        engine: `${names.b}:model-b`,
        engines_tried: [`${names.b}:model-b`],
        error_code: null,
      },
    ]);
  });

  it('a sole engine is always called: it failed N times, recovered, and the very next request is 200', async () => {
    const { key, id, names } = await fallbackKey(({ a }) => `${a}:model-a`);
    fakes.first.setMode({ kind: 'status', status: 500 });
    for (let i = 0; i < CIRCUIT_FAILURES + 1; i++)
      expectEnvelope(await call(api, TEXT, { input: `fail ${i}` }, { key }), 503, 'provider_unavailable');
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES + 1); // open after N, yet still called: nothing can answer instead
    expect(await remainingUnits(id)).toBe(100);

    fakes.first.setMode({ kind: 'ok' });
    const result = await call(api, TEXT, { input: 'recovered' }, { key });
    expect(result.status, result.text).toBe(200);
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES + 2);
    expect(await remainingUnits(id)).toBe(97);
    const { rows } = await getPool().query('SELECT consecutive_failures, open_until FROM provider_circuits WHERE provider = $1', [names.a]);
    expect(rows).toEqual([{ consecutive_failures: 0, open_until: null }]);
  });

  it('an engine list skips the failing first engine after N failures, and uses it again after its first success', async () => {
    const { key, names } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    const sole = await createTestKey({
      quota: 100,
      providers: { [names.a]: { type: 'openai', base_url: fakes.first.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FALLBACK_KEY' } },
      operations: { 'text.generate': { engine: `${names.a}:model-a`, units: 1 } },
    });
    fakes.first.setMode({ kind: 'status', status: 503 });
    for (let i = 0; i < CIRCUIT_FAILURES; i++) expect((await call(api, TEXT, { input: `f ${i}` }, { key })).status).toBe(200);
    expect([fakes.first.callCount, fakes.second.callCount]).toEqual([CIRCUIT_FAILURES, CIRCUIT_FAILURES]);

    // Open: the list goes straight to the second engine while the first stays down, a fallback the
    // metric counts as it counts one after a failure (operations audit: the panel showed nothing).
    await enableMetrics();
    const fallbacks = async () =>
      sampleValue(parsePrometheusText(await currentMetrics()!.registry.metrics()), 'wgs_provider_fallbacks_total', {
        operation: 'text.generate',
        from: `${names.a}:model-a`,
        to: `${names.b}:model-b`,
      }) ?? 0;
    const before = await fallbacks();
    expect((await call(api, TEXT, { input: 'skipped' }, { key })).status).toBe(200);
    expect([fakes.first.callCount, fakes.second.callCount]).toEqual([CIRCUIT_FAILURES, CIRCUIT_FAILURES + 1]);
    expect(await fallbacks()).toBe(before + 1);

    // The provider is back; a call where it is the only engine succeeds and closes the circuit.
    fakes.first.setMode({ kind: 'ok' });
    expect((await call(api, TEXT, { input: 'sole' }, { key: sole.key })).status).toBe(200);
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES + 1);
    forgetCircuitSnapshot(); // as another instance after its refresh
    expect((await call(api, TEXT, { input: 'first again' }, { key })).status).toBe(200);
    expect([fakes.first.callCount, fakes.second.callCount]).toEqual([CIRCUIT_FAILURES + 2, CIRCUIT_FAILURES + 1]);
  });

  it('every engine of a list open: the last one is still called and answers', async () => {
    const { key } = await fallbackKey(({ a, b }) => [`${a}:model-a`, `${b}:model-b`]);
    fakes.first.setMode({ kind: 'status', status: 500 });
    fakes.second.setMode({ kind: 'status', status: 500 });
    for (let i = 0; i < CIRCUIT_FAILURES; i++)
      expectEnvelope(await call(api, TEXT, { input: `fail ${i}` }, { key }), 503, 'provider_unavailable');
    fakes.second.setMode({ kind: 'ok' });
    const result = await call(api, TEXT, { input: 'last engine' }, { key });
    expect(result.status, result.text).toBe(200);
    expect([fakes.first.callCount, fakes.second.callCount]).toEqual([CIRCUIT_FAILURES, CIRCUIT_FAILURES + 1]);
  });

  it('a success closes the circuit: the failure count goes back to 0', async () => {
    const { key, names } = await fallbackKey(({ a }) => `${a}:model-a`);
    fakes.first.setMode({ kind: 'status', status: 500 });
    expectEnvelope(await call(api, TEXT, { input: 'fail once' }, { key }), 503, 'provider_unavailable');
    fakes.first.setMode({ kind: 'ok' });
    expect((await call(api, TEXT, { input: 'then fine' }, { key })).status).toBe(200);
    const { rows } = await getPool().query('SELECT consecutive_failures, open_until FROM provider_circuits WHERE provider = $1', [names.a]);
    expect(rows).toEqual([{ consecutive_failures: 0, open_until: null }]);
  });

  it('a refused request (400) does not count towards the circuit', async () => {
    const { key, names } = await fallbackKey(({ a }) => `${a}:model-a`);
    fakes.first.setMode({ kind: 'status', status: 400 });
    for (let i = 0; i < CIRCUIT_FAILURES + 1; i++) await call(api, TEXT, { input: `bad ${i}` }, { key });
    expect(fakes.first.callCount).toBe(CIRCUIT_FAILURES + 1);
    const { rows } = await getPool().query('SELECT 1 FROM provider_circuits WHERE provider = $1', [names.a]);
    expect(rows).toEqual([]);
  });
});
