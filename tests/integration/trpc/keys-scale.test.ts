import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import type { PrismaClient } from '@/server/db/generated/client';
import { createCaller } from '@/server/trpc/app-router';
import { createInnerContext } from '@/server/trpc/context';
import { operatorWithPackage } from './helpers';

afterAll(() => disconnectDb());

class Rollback extends Error {}

describe('keys list with 100,000 keys', () => {
  it('searches, filters and pages quickly; the rows are rolled back afterwards', async () => {
    const { operator, slug } = await operatorWithPackage('pk-scale');
    const version = await getPrisma().packageVersion.findFirstOrThrow({ where: { package: { slug } } });
    const timings: Record<string, number> = {};
    const timed = async <T>(name: string, work: () => Promise<T>) => {
      const started = performance.now();
      const result = await work();
      timings[name] = performance.now() - started;
      return result;
    };

    await getPrisma()
      .$transaction(
        async (tx) => {
          await tx.$executeRaw`
            INSERT INTO api_keys (id, hash, prefix, label, status, package_version_id, remaining_units, total_units, created_at)
            SELECT gen_random_uuid(), md5(random()::text || n) || md5(n::text), 'wgs_live_' || lpad(to_hex(n % 65536), 4, '0'),
                   'scale ' || n, CASE WHEN n % 10 = 0 THEN 'revoked'::"KeyStatus" ELSE 'active'::"KeyStatus" END,
                   ${version.id}::uuid, 100, 100, now() - make_interval(secs => n)
              FROM generate_series(1, 100000) AS n`;
          const session = {
            operatorId: operator.id,
            email: operator.email,
            role: operator.role,
            expires: new Date(Date.now() + 60_000).toISOString(),
          };
          const caller = createCaller(createInnerContext(session, tx as unknown as PrismaClient));

          const first = await timed('first page', () => caller.keys.list({ packageSlug: slug, limit: 50 }));
          expect(first.items.map((key) => key.label).slice(0, 2)).toEqual(['scale 1', 'scale 2']);
          let cursor = first.nextCursor!;
          for (let page = 0; page < 20; page++) cursor = (await caller.keys.list({ packageSlug: slug, limit: 50, cursor })).nextCursor!;
          const deep = await timed('page 22', () => caller.keys.list({ packageSlug: slug, limit: 50, cursor }));
          expect(deep.items[0]!.label).toBe('scale 1051');
          const search = await timed('search', () => caller.keys.list({ search: 'scale 99999', limit: 50 }));
          expect(search.items.map((key) => key.label)).toEqual(['scale 99999']);
          const revoked = await timed('status filter', () => caller.keys.list({ packageSlug: slug, status: 'revoked', limit: 50 }));
          expect(revoked.items).toHaveLength(50);
          expect(revoked.items.every((key) => key.status === 'revoked')).toBe(true);
          throw new Rollback();
        },
        { timeout: 120_000, maxWait: 10_000 },
      )
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });

    // Generous bounds: they catch a query that scans or sorts the whole table per page, not jitter.
    for (const [name, ms] of Object.entries(timings)) expect(ms, `${name} took ${Math.round(ms)} ms`).toBeLessThan(1500);
    expect(await getPrisma().apiKey.count({ where: { packageVersionId: version.id } })).toBe(0);
  });
});
