import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { diffDefinitions } from '@/server/domain/packages/version-diff';
import { definition, expectTrpcError, operatorWithPackage } from './helpers';

afterAll(() => disconnectDb());

describe('package versions: diff', () => {
  it('lists only the fields that changed between any two versions', async () => {
    const { caller, slug } = await operatorWithPackage('pk-diff');
    const v2 = definition(slug, 250);
    await caller.packages.createVersion({ definition: { ...v2, limits: { ...v2.limits, requests_per_minute: 120 } }, mode: 'new-version' });
    const diff = await caller.packages.diff({ slug, from: 1, to: 2 });
    expect(diff.changes).toEqual([
      { path: 'quota_units', kind: 'changed', before: 100, after: 250 },
      { path: 'limits.requests_per_minute', kind: 'changed', before: 60, after: 120 },
    ]);
    expect((await caller.packages.diff({ slug, from: 2, to: 1 })).changes[0]).toMatchObject({ before: 250, after: 100 });
    expect((await caller.packages.diff({ slug, from: 2, to: 2 })).changes).toEqual([]);
    await expectTrpcError(caller.packages.diff({ slug, from: 1, to: 9 }), 'NOT_FOUND', 'not_found');
  });

  it("refuses a new version made from a form opened before another operator's version, so neither undoes the other", async () => {
    const { caller, slug } = await operatorWithPackage('pk-stale');
    // Two tabs open the form on version 1; the first saves version 2.
    expect(
      await caller.packages.createVersion({ definition: definition(slug, 200), mode: 'new-version', basedOnVersion: 1 }),
    ).toMatchObject({
      version: 2,
    });
    const stale = caller.packages.createVersion({ definition: definition(slug, 300), mode: 'new-version', basedOnVersion: 1 });
    await expectTrpcError(stale, 'UNPROCESSABLE_CONTENT', 'validation_error');
    await expect(stale).rejects.toThrow(/Version 2 of "pk-stale\S*" was created after version 1/);
    expect((await getPrisma().package.findUniqueOrThrow({ where: { slug } })).latestVersion).toBe(2);
    // Started again from version 2, the change is taken.
    expect(
      await caller.packages.createVersion({ definition: definition(slug, 300), mode: 'new-version', basedOnVersion: 2 }),
    ).toMatchObject({
      version: 3,
    });
  });

  it('names added and removed operations and changed lists', () => {
    const before = { operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } } };
    const after = {
      operations: {
        'text.generate': { engine: 'local', units: 1, output_formats: ['markdown', 'text'] },
        'code.generate': { engine: 'local', units: 2 },
      },
    };
    expect(diffDefinitions(before, after)).toEqual([
      { path: 'operations.text.generate.output_formats', kind: 'changed', before: ['text'], after: ['markdown', 'text'] },
      { path: 'operations.code.generate.engine', kind: 'added', before: undefined, after: 'local' },
      { path: 'operations.code.generate.units', kind: 'added', before: undefined, after: 2 },
    ]);
    expect(diffDefinitions(after, before).map((change) => change.kind)).toEqual(['changed', 'removed', 'removed']);
  });
});

describe('packages: archive', () => {
  it('refuses new keys on an archived package, keeps the issued ones, and audits both ways', async () => {
    const { caller, operator, slug } = await operatorWithPackage('pk-archive');
    const before = await caller.keys.issue({ packageSlug: slug, label: 'issued before' });
    const archived = await caller.packages.setArchived({ slug, archived: true });
    expect(archived.archived_at).not.toBeNull();
    expect((await caller.packages.get({ slug })).archived_at).toBe(archived.archived_at);
    expect((await caller.packages.list()).find((pkg) => pkg.slug === slug)?.archived_at).toBe(archived.archived_at);
    const refused = await expectTrpcError(caller.keys.issue({ packageSlug: slug }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect(refused.message).toBe(`Package "${slug}" is archived: it sells no new keys (the keys already issued on it keep working).`);
    expect((await caller.keys.get({ id: before.id })).status).toBe('active');
    // Archiving again changes nothing and writes no second entry.
    expect((await caller.packages.setArchived({ slug, archived: true })).archived_at).toBe(archived.archived_at);
    await caller.packages.setArchived({ slug, archived: false });
    expect((await caller.keys.issue({ packageSlug: slug })).package).toBe(slug);
    const actions = await getPrisma().auditLog.findMany({
      where: { targetType: 'package', targetId: slug, action: { startsWith: 'package.' } },
      orderBy: { id: 'asc' },
    });
    expect(actions.map((entry) => [entry.action, entry.actorId])).toEqual([
      ['package.create', null],
      ['package.archive', operator.id],
      ['package.unarchive', operator.id],
    ]);
    await expectTrpcError(caller.packages.setArchived({ slug: 'no-such-package', archived: true }), 'NOT_FOUND', 'not_found');
  });
});

describe('audit: targets in operators words', () => {
  it('names a key by prefix and label, a package by slug and version', async () => {
    const { caller, slug } = await operatorWithPackage('pk-audit-target');
    await caller.packages.createVersion({ definition: definition(slug, 200), mode: 'new-version' });
    const key = await caller.keys.issue({ packageSlug: slug, label: 'audited customer' });
    const forKey = await caller.audit.list({ targetId: key.id });
    expect(forKey.items[0]!.target).toEqual({ type: 'api_key', id: key.id, prefix: key.prefix, label: 'audited customer' });
    const forPackage = await caller.audit.list({ targetId: slug, action: 'package.version.create' });
    expect(forPackage.items[0]!.target).toEqual({ type: 'package', id: slug, slug, version: 2, previous_version: 1 });
  });
});
