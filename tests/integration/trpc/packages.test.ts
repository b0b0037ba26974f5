import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { definition, expectTrpcError, operatorCaller, operatorWithPackage, seedPackage, uniqueSlug } from './helpers';

afterAll(() => disconnectDb());

describe('packages', () => {
  it('list and get show every version with its settings', async () => {
    const { caller, slug } = await operatorWithPackage('pk-list');
    await seedPackage(slug, 250);
    const list = await caller.packages.list();
    expect(list.find((pkg) => pkg.slug === slug)).toMatchObject({ latest_version: 2, quota_units: 250, operations: ['text.generate'] });
    const pkg = await caller.packages.get({ slug });
    expect(pkg.versions.map((v) => [v.version, v.quota_units])).toEqual([
      [2, 250],
      [1, 100],
    ]);
    expect(pkg.versions[0]!.operations['text.generate']).toEqual({ engine: 'local', units: 1, output_formats: ['text'] });
  });

  it('get of an unknown package is NOT_FOUND from the catalog', async () => {
    const { caller } = await operatorCaller();
    await expectTrpcError(caller.packages.get({ slug: 'no-such-package' }), 'NOT_FOUND', 'not_found');
  });

  it('createVersion makes a new version, keeps an identical one, and audits who did it', async () => {
    const { caller, operator, slug } = await operatorWithPackage('pk-form');
    const created = await caller.packages.createVersion({ definition: definition(slug, 500), mode: 'new-version' });
    expect(created).toEqual({ slug, version: 2, status: 'updated' });
    const same = await caller.packages.createVersion({ definition: definition(slug, 500), mode: 'new-version' });
    expect(same).toEqual({ slug, version: 2, status: 'unchanged' });
    const audit = await getPrisma().auditLog.findFirst({ where: { targetId: slug, action: 'package.version.create' } });
    expect(audit).toMatchObject({ actorType: 'operator', actorId: operator.id, actorLabel: operator.email });
  });

  it('createVersion creates a new package, and refuses one whose slug exists', async () => {
    const { caller } = await operatorCaller();
    const slug = uniqueSlug('pk-new');
    expect(await caller.packages.createVersion({ definition: definition(slug), mode: 'new-package' })).toEqual({
      slug,
      version: 1,
      status: 'created',
    });
    const error = await expectTrpcError(
      caller.packages.createVersion({ definition: definition(slug), mode: 'new-package' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(error.message).toMatch(/exists/);
  });

  it('createVersion under a race: one new package per slug, the others refused; versions numbered one after another', async () => {
    const { caller } = await operatorCaller();
    const slug = uniqueSlug('pk-race');
    const racers = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        caller.packages.createVersion({ definition: { ...definition(slug), name: `racer ${i}` }, mode: 'new-package' }),
      ),
    );
    const won = racers.filter((r) => r.status === 'fulfilled');
    expect(won.map((r) => r.value)).toEqual([{ slug, version: 1, status: 'created' }]);
    for (const lost of racers.filter((r) => r.status === 'rejected')) {
      expect((lost.reason as { code: string }).code).toBe('UNPROCESSABLE_CONTENT');
      expect(String((lost.reason as Error).message)).toMatch(/exists/);
    }
    const versions = await Promise.all(
      Array.from({ length: 4 }, (_, i) => caller.packages.createVersion({ definition: definition(slug, 1000 + i), mode: 'new-version' })),
    );
    expect(versions.map((v) => v.version).sort()).toEqual([2, 3, 4, 5]);
    expect((await caller.packages.get({ slug })).versions).toHaveLength(5);
  });

  it('createVersion validates with the packages-file schema and reports field paths', async () => {
    const { caller, slug } = await operatorWithPackage('pk-bad');
    const bad = {
      ...definition(slug),
      quota_units: -1,
      operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['pdf'] } },
    };
    const error = await expectTrpcError(
      caller.packages.createVersion({ definition: bad, mode: 'new-version' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    const issues = (error.cause as { details?: { issues?: { path: string }[] } }).details?.issues ?? [];
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['quota_units', 'operations.text.generate.output_formats.0']));
    const unknownProvider = { ...definition(slug), operations: { 'text.generate': { engine: 'ghost:model', units: 1 } } };
    const providerError = await expectTrpcError(
      caller.packages.createVersion({ definition: unknownProvider, mode: 'new-version' }),
      'UNPROCESSABLE_CONTENT',
    );
    expect((providerError.cause as { details?: { issues?: { path: string }[] } }).details?.issues?.[0]?.path).toBe(
      'operations.text.generate.engine',
    );
    expect((await caller.packages.get({ slug })).latest_version).toBe(1);
  });

  it('createVersion of a missing package in new-version mode is NOT_FOUND; a bad input shape is BAD_REQUEST', async () => {
    const { caller } = await operatorCaller();
    await expectTrpcError(
      caller.packages.createVersion({ definition: definition(uniqueSlug('pk-missing')), mode: 'new-version' }),
      'NOT_FOUND',
    );
    // @ts-expect-error the mode is checked at run time too
    await expectTrpcError(caller.packages.createVersion({ definition: definition('x'), mode: 'overwrite' }), 'BAD_REQUEST');
  });
});
