import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { expectTrpcError, operatorCaller, operatorWithPackage, usage } from './helpers';

afterAll(() => disconnectDb());

describe('keys', () => {
  it('issue returns the secret once, stores its hash and audits the operator', async () => {
    const { caller, operator, slug } = await operatorWithPackage('pk-issue', 42);
    const issued = await caller.keys.issue({ packageSlug: slug, label: 'customer A' });
    expect(issued).toMatchObject({ package: slug, package_version: 1, remaining_units: 42 });
    expect(issued.key).toMatch(/^wgs_live_/);
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: issued.id } })).hash).toBe(hashKeySecret(issued.key));
    const view = await caller.keys.get({ id: issued.id });
    expect(JSON.stringify(view)).not.toContain(issued.key);
    expect(await getPrisma().auditLog.findFirst({ where: { targetId: issued.id, action: 'key.create' } })).toMatchObject({
      actorId: operator.id,
    });
  });

  it('issue validates input and reports an unknown package as NOT_FOUND', async () => {
    const { caller } = await operatorCaller();
    await expectTrpcError(caller.keys.issue({ packageSlug: 'no-such-package' }), 'NOT_FOUND', 'not_found');
    await expectTrpcError(caller.keys.issue({ packageSlug: '', label: 'x' }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.issue({ packageSlug: 'starter', label: 'x'.repeat(201) }), 'BAD_REQUEST');
  });

  it('list searches, filters and pages through keys, forward and back', async () => {
    const { caller, slug } = await operatorWithPackage('pk-page');
    const marker = randomUUID().slice(0, 8);
    for (let i = 0; i < 5; i++) await caller.keys.issue({ packageSlug: slug, label: `paging ${marker} ${i}` });
    const first = await caller.keys.list({ search: marker, limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await caller.keys.list({ search: marker, limit: 2, cursor: first.nextCursor! });
    const third = await caller.keys.list({ search: marker, limit: 2, cursor: second.nextCursor! });
    const labels = [...first.items, ...second.items, ...third.items].map((key) => key.label);
    expect(labels).toEqual([4, 3, 2, 1, 0].map((i) => `paging ${marker} ${i}`));
    expect(third.nextCursor).toBeNull();
    // Back from the third page: the second, then the first, the same rows in the same order.
    expect(first.prevCursor).toBeNull();
    const back = await caller.keys.list({ search: marker, limit: 2, cursor: third.prevCursor! });
    expect(back.items.map((key) => key.id)).toEqual(second.items.map((key) => key.id));
    const start = await caller.keys.list({ search: marker, limit: 2, cursor: back.prevCursor! });
    expect(start.items.map((key) => key.id)).toEqual(first.items.map((key) => key.id));
    expect(start.prevCursor).toBeNull();
    expect(start.nextCursor).not.toBeNull();
    expect((await caller.keys.list({ packageSlug: slug, status: 'revoked' })).items).toEqual([]);
    // LIKE wildcards in a search are plain characters.
    for (const search of ['%', '_', 'paging%', `paging ${marker}_`]) {
      expect((await caller.keys.list({ packageSlug: slug, search })).items, search).toEqual([]);
    }
    expect((await caller.keys.list({ packageSlug: slug, search: `paging ${marker} 3` })).items.map((key) => key.label)).toEqual([
      `paging ${marker} 3`,
    ]);
    // A cursor is opaque, as every list's: one this service did not write is refused as such.
    await expectTrpcError(caller.keys.list({ cursor: 'not-a-uuid' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
  });

  it('revoke and topUp change the key and are audited with before and after', async () => {
    const { caller, operator, slug } = await operatorWithPackage('pk-manage', 10);
    const { id } = await caller.keys.issue({ packageSlug: slug });
    expect((await caller.keys.topUp({ id, units: 15 })).remaining_units).toBe(25);
    expect((await caller.keys.revoke({ id })).status).toBe('revoked');
    await expectTrpcError(caller.keys.topUp({ id, units: 5 }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect((await caller.keys.get({ id })).remaining_units).toBe(25);
    const entries = await getPrisma().auditLog.findMany({ where: { targetId: id }, orderBy: { id: 'asc' } });
    expect(entries.map((entry) => [entry.action, entry.actorLabel])).toEqual([
      ['key.create', operator.email],
      ['key.topup', operator.email],
      ['key.revoke', operator.email],
    ]);
    expect(entries[1]).toMatchObject({ before: { remaining_units: 10 }, after: { remaining_units: 25, added: 15 } });
    const audit = await caller.audit.list({ targetId: id });
    expect(audit.items.map((item) => item.action)).toEqual(['key.revoke', 'key.topup', 'key.create']);
  });

  it('top-ups racing a revoke: none lands after it, and every one that lands is counted', async () => {
    const { caller, slug } = await operatorWithPackage('pk-race', 0);
    const { id } = await caller.keys.issue({ packageSlug: slug });
    const results = await Promise.allSettled([
      ...Array.from({ length: 4 }, () => caller.keys.topUp({ id, units: 10 })),
      caller.keys.revoke({ id }),
      ...Array.from({ length: 4 }, () => caller.keys.topUp({ id, units: 10 })),
    ]);
    const landed = results.filter((result, i) => i !== 4 && result.status === 'fulfilled').length;
    const entries = await getPrisma().auditLog.findMany({ where: { targetId: id }, orderBy: { id: 'asc' } });
    const actions = entries.map((entry) => entry.action);
    expect(actions.slice(actions.indexOf('key.revoke') + 1)).toEqual([]);
    expect(actions.filter((action) => action === 'key.topup')).toHaveLength(landed);
    expect((await caller.keys.get({ id })).remaining_units).toBe(10 * landed);
  });

  it('a top-up that would take the balance past its 32-bit column is refused, not a 500', async () => {
    const { caller, slug } = await operatorWithPackage('pk-ceiling', 25);
    const { id } = await caller.keys.issue({ packageSlug: slug });
    expect((await caller.keys.topUp({ id, units: 1_000_000_000 })).remaining_units).toBe(1_000_000_025);
    expect((await caller.keys.topUp({ id, units: 1_000_000_000 })).remaining_units).toBe(2_000_000_025);
    const tooMuch = await expectTrpcError(caller.keys.topUp({ id, units: 1_000_000_000 }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect(tooMuch.message).toMatch(/largest balance/);
    expect((await caller.keys.topUp({ id, units: 147_483_622 })).remaining_units).toBe(2_147_483_647);
    await expectTrpcError(caller.keys.topUp({ id, units: 1 }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect((await caller.keys.get({ id })).remaining_units).toBe(2_147_483_647);
  });

  it('a top-up that would take the units granted past the column is refused: total - remaining stays what was used (outside audit: the total was capped)', async () => {
    const { caller, slug } = await operatorWithPackage('pk-total', 25);
    const { id } = await caller.keys.issue({ packageSlug: slug });
    for (let i = 0; i < 2; i++) await caller.keys.topUp({ id, units: 1_000_000_000 });
    await getPrisma().apiKey.update({ where: { id }, data: { remainingUnits: { decrement: 20 } } }); // 20 units used
    expect((await caller.keys.topUp({ id, units: 147_483_622 })).remaining_units).toBe(2_147_483_627);
    const refused = await expectTrpcError(caller.keys.topUp({ id, units: 10 }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect(refused.message).toMatch(/largest total/);
    const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id } });
    expect([key.totalUnits, key.remainingUnits]).toEqual([2_147_483_647, 2_147_483_627]);
  });

  it('revoke, topUp and get of an unknown key are NOT_FOUND; bad units are BAD_REQUEST', async () => {
    const { caller } = await operatorCaller();
    const missing = randomUUID();
    await expectTrpcError(caller.keys.get({ id: missing }), 'NOT_FOUND', 'not_found');
    await expectTrpcError(caller.keys.revoke({ id: missing }), 'NOT_FOUND', 'not_found');
    await expectTrpcError(caller.keys.topUp({ id: missing, units: 1 }), 'NOT_FOUND', 'not_found');
    await expectTrpcError(caller.keys.topUp({ id: missing, units: 0 }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.topUp({ id: missing, units: 1.5 }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.revoke({ id: 'nope' }), 'BAD_REQUEST');
  });

  it('activity shows units per day and recent requests of one key', async () => {
    const { caller, slug } = await operatorWithPackage('pk-activity');
    const { id } = await caller.keys.issue({ packageSlug: slug });
    await usage(id, 'succeeded', 3);
    await usage(id, 'succeeded', 2);
    await usage(id, 'failed', 0);
    const activity = await caller.keys.activity({ id, days: 7 });
    expect(activity.daily).toHaveLength(7);
    expect(activity.daily.at(-1)).toMatchObject({ units: 5, requests: 3, failed: 1 });
    expect(activity.recent.map((event) => event.outcome)).toEqual(['failed', 'succeeded', 'succeeded']);
    await expectTrpcError(caller.keys.activity({ id, days: 0 }), 'BAD_REQUEST');
  });
});
