import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { getSqlDb } from '@/server/db/client';
import { seededRandom } from '@/server/providers/local/seed';
import { consumeRequest } from '@/server/domain/rate-limit/request-rate';
import { deleteIdleRateWindows, postgresWindowStore } from '@/server/domain/rate-limit/sliding-window';
import { expectExactUnderRace, expectSlidingAcrossEdge, expectWaitWithinWindow } from '../helpers/sliding-window-edge';
import { REPO_ROOT } from './support/processes';

// The sliding window in PostgreSQL (no REDIS_URL), seen by two instances: each its own pool
// on the one database. The Redis store runs the same checks in rate-limits-redis.test.ts.

const poolA = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const poolB = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

afterAll(async () => {
  await poolA.end();
  await poolB.end();
});

describe('sliding-window rate limit in PostgreSQL', () => {
  it("across a window's edge, two instances never take more than the limit in any 60 s", async () => {
    await expectSlidingAcrossEdge(postgresWindowStore(poolA), postgresWindowStore(poolB));
  });

  it('concurrent hits from two instances: exactly the limit is taken', async () => {
    await expectExactUnderRace(postgresWindowStore(poolA), postgresWindowStore(poolB));
  });

  it("a 429 never names more than the window: Retry-After 60 at a second's start, exact to the second after", async () => {
    await expectWaitWithinWindow(postgresWindowStore(poolA));
    const id = `wait-${Date.now()}`;
    const t0 = 1_800_000_300_000;
    await consumeRequest(getSqlDb(), id, 1, t0);
    const refused = await consumeRequest(getSqlDb(), id, 1, t0).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfter: 60 });
    const later = await consumeRequest(getSqlDb(), id, 1, t0 + 58_500).catch((error: unknown) => error);
    expect(later).toMatchObject({ code: 'rate_limited', retryAfter: 2 });
    expect(await consumeRequest(getSqlDb(), id, 1, t0 + 60_000)).toMatchObject({ remaining: 0, resetSeconds: 60 });
  });

  it('a window written before latest_ms existed counts its buckets until the end of their second plus the window', async () => {
    const key = `legacy:${Date.now()}`;
    const second = 1_800_000_400;
    await poolA.query(`INSERT INTO rate_windows (key, seconds, counts, latest_ms, expire_second) VALUES ($1, $2, '{1}', '{}', $3)`, [
      key,
      [second],
      second + 61,
    ]);
    const store = postgresWindowStore(poolA);
    expect(await store.take(key, 1, 60, second * 1000 + 200)).toEqual({ allowed: false, used: 1, waitMs: 60_799 });
    expect(await store.take(key, 1, 60, second * 1000 + 60_999)).toMatchObject({ allowed: true, used: 1 });
  });

  it('housekeeping deletes the windows whose hits have all left, and only those', async () => {
    const store = postgresWindowStore(poolA);
    await store.take('idle:old', 5, 60, Date.now() - 62_000);
    await store.take('idle:recent', 5, 60);
    await deleteIdleRateWindows(getSqlDb());
    const { rows } = await poolA.query<{ key: string }>("SELECT key FROM rate_windows WHERE key LIKE 'idle:%' ORDER BY key");
    expect(rows.map((row) => row.key)).toEqual(['idle:recent']);
  });

  it("a taken point writes its window's row once, a refused one writes none", async () => {
    const key = `writes:${Date.now()}`;
    const t0 = 1_800_000_500_000;
    const client = await poolA.connect();
    try {
      const updates = async () =>
        Number((await client.query<{ n: string }>("SELECT pg_stat_get_xact_tuples_updated('rate_windows'::regclass) AS n")).rows[0]!.n);
      /** Row versions of rate_windows the take wrote (this backend's counts, in its transaction), and the row's xmin after it. */
      const take = async (nowMs: number) => {
        await client.query('BEGIN');
        const before = await updates();
        const { rows } = await client.query<{ allowed: boolean }>('SELECT allowed FROM wgs_rate_take($1, 2, 60, $2)', [key, nowMs]);
        const updated = (await updates()) - before;
        await client.query('COMMIT');
        const version = await client.query<{ xmin: string }>('SELECT xmin::text FROM rate_windows WHERE key = $1', [key]);
        return { allowed: rows[0]!.allowed, updated, xmin: version.rows[0]!.xmin };
      };
      await take(t0);
      expect(await take(t0 + 100)).toMatchObject({ allowed: true, updated: 1 });
      const full = await take(t0 + 200);
      expect(full).toMatchObject({ allowed: false, updated: 0 });
      expect(await take(t0 + 300)).toEqual(full);
    } finally {
      client.release();
    }
  });

  it('a window with nothing to leave is read as it is: the same answers and rows as the function that filtered every take', async () => {
    // wgs_rate_take as it was before 20261205000000, under another name, beside today's.
    const migration = readFileSync(join(REPO_ROOT, 'prisma/migrations/20261204100000_rate_point_written_once/migration.sql'), 'utf8');
    const before = migration
      .slice(migration.indexOf('CREATE OR REPLACE FUNCTION wgs_rate_take('))
      .replace('wgs_rate_take(', 'wgs_rate_take_before(');
    await poolA.query(before);
    try {
      const random = seededRandom('rate window kept when nothing left');
      const keys = { today: `same:today:${Date.now()}`, before: `same:before:${Date.now()}` };
      const rowOf = async (key: string) =>
        (await poolA.query('SELECT seconds, counts, latest_ms, expire_second FROM rate_windows WHERE key = $1', [key])).rows[0];
      const answers = { allowed: 0, refused: 0 };
      let now = 1_800_000_600_000;
      for (let step = 0; step < 600; step++) {
        // Mostly forward by up to 0.8 s, now and then a little back (a call that waited for the
        // row's lock) or past a whole window; limits and windows as a package change may set them.
        now += random() < 0.03 ? 61_000 : Math.floor(random() * 900) - 100;
        const [limit, windowSeconds] = [random() < 0.5 ? 5 : 40, random() < 0.85 ? 60 : 10];
        if (random() < 0.1) {
          for (const key of Object.values(keys)) await poolA.query('SELECT wgs_rate_give_back($1)', [key]);
        }
        const today = await poolA.query('SELECT * FROM wgs_rate_take($1, $2, $3, $4)', [keys.today, limit, windowSeconds, now]);
        const reference = await poolA.query('SELECT * FROM wgs_rate_take_before($1, $2, $3, $4)', [keys.before, limit, windowSeconds, now]);
        expect(today.rows, `step ${step}`).toEqual(reference.rows);
        expect(await rowOf(keys.today), `step ${step}`).toEqual(await rowOf(keys.before));
        answers[today.rows[0].allowed ? 'allowed' : 'refused'] += 1;
      }
      expect(answers.allowed).toBeGreaterThan(100);
      expect(answers.refused).toBeGreaterThan(100);
    } finally {
      await poolA.query('DROP FUNCTION wgs_rate_take_before(VARCHAR, INTEGER, INTEGER, BIGINT)');
    }
  });
});
