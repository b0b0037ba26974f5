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

  it("the narrow row's migration keeps every bucket's count and latest hit, a bucket without one counting to its second's end", async () => {
    // Its UPDATE, run on a table shaped as rate_windows was before it.
    const migration = readFileSync(join(REPO_ROOT, 'prisma/migrations/20261206000000_rate_window_narrow_row/migration.sql'), 'utf8');
    const update = migration.slice(
      migration.indexOf('UPDATE "rate_windows"'),
      migration.indexOf(';', migration.indexOf('UPDATE "rate_windows"')),
    );
    const client = await poolA.connect();
    try {
      await client.query(`CREATE TEMP TABLE wide_windows (key VARCHAR PRIMARY KEY, seconds BIGINT[], counts INTEGER[], latest_ms BIGINT[],
                            expire_second BIGINT, base_ms BIGINT NOT NULL DEFAULT 0, latest_offsets INTEGER[] NOT NULL DEFAULT '{}')`);
      const second = 1_800_000_400;
      await client.query(
        `INSERT INTO wide_windows (key, seconds, counts, latest_ms, expire_second) VALUES
           ('legacy', $1, '{1}', '{}', 0), ('current', $2, '{2,3}', $3, 0), ('mixed', $2, '{2,3}', $4, 0), ('empty', '{}', '{}', '{}', 0)`,
        [[second], [second, second + 5], [second * 1000 + 120, second * 1000 + 5_400], [second * 1000 + 120]],
      );
      await client.query(update.replaceAll('"rate_windows"', 'wide_windows').replaceAll('rate_windows', 'wide_windows'));
      const { rows } = await client.query('SELECT key, counts, base_ms, latest_offsets FROM wide_windows ORDER BY key');
      const base = String(second * 1000 + 120);
      expect(rows).toEqual([
        { key: 'current', counts: [2, 3], base_ms: base, latest_offsets: [0, 5_280] },
        { key: 'empty', counts: [], base_ms: '0', latest_offsets: [] },
        { key: 'legacy', counts: [1], base_ms: String(second * 1000 + 999), latest_offsets: [0] },
        { key: 'mixed', counts: [2, 3], base_ms: base, latest_offsets: [0, 5_879] },
      ]);
    } finally {
      await client.query('DROP TABLE IF EXISTS wide_windows');
      client.release();
    }
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

  it('the narrow row: the same answers and windows as the wide one it replaced (20261205000000)', async () => {
    // wgs_rate_take as it was before 20261206000000, under another name, on a table of the wide shape.
    const migration = readFileSync(
      join(REPO_ROOT, 'prisma/migrations/20261205000000_rate_window_kept_when_nothing_left/migration.sql'),
      'utf8',
    );
    const before = migration
      .slice(migration.indexOf('CREATE OR REPLACE FUNCTION wgs_rate_take('))
      .replace('wgs_rate_take(', 'wgs_rate_take_wide(')
      .replaceAll('rate_windows', 'wide_rate_windows');
    await poolA.query(`CREATE TABLE wide_rate_windows (key VARCHAR(255) PRIMARY KEY, seconds BIGINT[] NOT NULL, counts INTEGER[] NOT NULL,
                                                   latest_ms BIGINT[] NOT NULL, expire_second BIGINT NOT NULL)`);
    await poolA.query(before);
    try {
      const random = seededRandom('rate window narrow row');
      const key = `same:${Date.now()}`;
      /** Both rows as the wide one reads: each bucket's second and latest hit in epoch ms. */
      const windowsOf = async () => {
        const narrow = (
          await poolA.query(
            `SELECT (SELECT coalesce(array_agg((base_ms + o) / 1000 ORDER BY i), '{}') FROM unnest(latest_ms) WITH ORDINALITY AS u(o, i)) AS seconds,
                    counts,
                    (SELECT coalesce(array_agg(base_ms + o ORDER BY i), '{}') FROM unnest(latest_ms) WITH ORDINALITY AS u(o, i)) AS latest_ms,
                    expire_second
               FROM rate_windows WHERE key = $1`,
            [key],
          )
        ).rows[0];
        const wide = (await poolA.query('SELECT seconds, counts, latest_ms, expire_second FROM wide_rate_windows WHERE key = $1', [key]))
          .rows[0];
        return { narrow, wide };
      };
      const answers = { allowed: 0, refused: 0, gaveBack: 0 };
      let now = 1_800_000_600_000;
      for (let step = 0; step < 800; step++) {
        // Mostly forward by up to 0.8 s, now and then a little back (a call that waited for the
        // row's lock) or past a whole window; limits and windows as a package change may set them.
        now += random() < 0.03 ? 61_000 : Math.floor(random() * 900) - 100;
        const [limit, windowSeconds] = [random() < 0.5 ? 5 : 40, random() < 0.85 ? 60 : 10];
        if (random() < 0.1) {
          await poolA.query('SELECT wgs_rate_give_back($1)', [key]);
          await poolA.query(
            `UPDATE wide_rate_windows SET counts[cardinality(counts)] = counts[cardinality(counts)] - 1
                              WHERE key = $1 AND cardinality(counts) > 0 AND counts[cardinality(counts)] > 0`,
            [key],
          );
          answers.gaveBack += 1;
        }
        const narrow = await poolA.query('SELECT * FROM wgs_rate_take($1, $2, $3, $4)', [key, limit, windowSeconds, now]);
        const wide = await poolA.query('SELECT * FROM wgs_rate_take_wide($1, $2, $3, $4)', [key, limit, windowSeconds, now]);
        expect(narrow.rows, `step ${step}`).toEqual(wide.rows);
        const windows = await windowsOf();
        expect(windows.narrow, `step ${step}`).toEqual(windows.wide);
        answers[narrow.rows[0].allowed ? 'allowed' : 'refused'] += 1;
      }
      expect(answers.allowed).toBeGreaterThan(100);
      expect(answers.refused).toBeGreaterThan(100);
      expect(answers.gaveBack).toBeGreaterThan(40);
      // Half the width or less for a full minute's window (61 buckets).
      const full = `full:${Date.now()}`;
      for (let second = 0; second < 61; second++)
        await poolA.query('SELECT wgs_rate_take($1, 1000, 60, $2)', [full, now + second * 1000 - 60_500]);
      const { rows } = await poolA.query<{ bytes: number }>('SELECT pg_column_size(w.*) AS bytes FROM rate_windows w WHERE key = $1', [
        full,
      ]);
      expect(rows[0]!.bytes).toBeLessThan(650);
    } finally {
      await poolA.query('DROP FUNCTION wgs_rate_take_wide(VARCHAR, INTEGER, INTEGER, BIGINT)');
      await poolA.query('DROP TABLE wide_rate_windows');
    }
  });
});
