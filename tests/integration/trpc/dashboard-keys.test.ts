import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { expectTrpcError, operatorWithPackage } from './helpers';

afterAll(() => disconnectDb());

describe('keys: expiry, extra units, totals and labels', () => {
  it('issues with an expiry day (the key works through it) and extra units on top of the quota', async () => {
    const { caller, slug } = await operatorWithPackage('pk-extra');
    const issued = await caller.keys.issue({ packageSlug: slug, label: 'with extras', expiresOn: '2099-12-31', extraUnits: 50 });
    expect(issued).toMatchObject({ remaining_units: 150, expires_at: '2100-01-01T00:00:00.000Z' });
    const view = await caller.keys.get({ id: issued.id });
    expect(view).toMatchObject({ remaining_units: 150, total_units: 150, expires_at: '2100-01-01T00:00:00.000Z' });
    const audit = await getPrisma().auditLog.findFirstOrThrow({ where: { targetId: issued.id, action: 'key.create' } });
    expect(audit.after).toMatchObject({ remaining_units: 150, expires_at: '2100-01-01T00:00:00.000Z' });
  });

  it('shows a key whose last day has passed as expired, and filters by it (a search beside the filter)', async () => {
    const { caller, slug } = await operatorWithPackage('pk-expired');
    const [lapsed, current, open] = await Promise.all(
      ['lapsed', 'current', 'open'].map((label) => caller.keys.issue({ packageSlug: slug, label: `${label} ${slug}` })),
    );
    await getPrisma().apiKey.update({ where: { id: lapsed!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await getPrisma().apiKey.update({ where: { id: current!.id }, data: { expiresAt: new Date(Date.now() + 3_600_000) } });
    expect((await caller.keys.get({ id: lapsed!.id })).status).toBe('expired');
    expect((await caller.keys.get({ id: current!.id })).status).toBe('active');
    const listed = async (status: 'active' | 'expired') =>
      (await caller.keys.list({ packageSlug: slug, search: slug, status })).items.map((key) => key.id).sort();
    expect(await listed('expired')).toEqual([lapsed!.id]);
    expect(await listed('active')).toEqual([current!.id, open!.id].sort());
  });

  it('refuses an expiry in the past and extra units that are not a whole number', async () => {
    const { caller, slug } = await operatorWithPackage('pk-bad-extra');
    await expectTrpcError(caller.keys.issue({ packageSlug: slug, expiresOn: '2001-01-01' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    await expectTrpcError(caller.keys.issue({ packageSlug: slug, extraUnits: -1 }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.issue({ packageSlug: slug, extraUnits: 1.5 }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.issue({ packageSlug: slug, expiresOn: '31/12/2099' }), 'BAD_REQUEST');
  });

  it("shows each key's stored bytes in the list and on its page", async () => {
    const { caller, slug } = await operatorWithPackage('pk-stored');
    const { id } = await caller.keys.issue({ packageSlug: slug, label: `stored ${slug}` });
    expect((await caller.keys.get({ id })).stored_bytes).toBe(0);
    await getPrisma().apiKey.update({ where: { id }, data: { storedBytes: 123_456 } });
    expect((await caller.keys.get({ id })).stored_bytes).toBe(123_456);
    expect((await caller.keys.list({ search: slug })).items.find((key) => key.id === id)?.stored_bytes).toBe(123_456);
  });

  it('a top-up raises the total with the remaining units', async () => {
    const { caller, slug } = await operatorWithPackage('pk-total', 10);
    const { id } = await caller.keys.issue({ packageSlug: slug });
    await getPrisma().apiKey.update({ where: { id }, data: { remainingUnits: 4 } });
    expect(await caller.keys.topUp({ id, units: 5 })).toMatchObject({ remaining_units: 9, total_units: 15 });
  });

  it('edits the label (audited with before and after), clears it, and refuses one too long', async () => {
    const { caller, operator, slug } = await operatorWithPackage('pk-label');
    const { id } = await caller.keys.issue({ packageSlug: slug, label: 'old name' });
    const marker = randomUUID().slice(0, 8);
    expect((await caller.keys.updateLabel({ id, label: `  new ${marker} ` })).label).toBe(`new ${marker}`);
    expect((await caller.keys.list({ search: marker })).items.map((key) => key.id)).toEqual([id]);
    const audit = await getPrisma().auditLog.findFirstOrThrow({ where: { targetId: id, action: 'key.label' } });
    expect(audit).toMatchObject({ actorId: operator.id, before: { label: 'old name' }, after: { label: `new ${marker}` } });
    expect((await caller.keys.updateLabel({ id, label: '' })).label).toBeNull();
    await expectTrpcError(caller.keys.updateLabel({ id, label: 'x'.repeat(201) }), 'BAD_REQUEST');
    // Characters are code points (CONTRACT.md §1): 200 emoji are 200, whatever their 400 UTF-16 units.
    expect((await caller.keys.updateLabel({ id, label: '😀'.repeat(200) })).label).toBe('😀'.repeat(200));
    await expectTrpcError(caller.keys.updateLabel({ id, label: '😀'.repeat(201) }), 'BAD_REQUEST');
    await expectTrpcError(caller.keys.updateLabel({ id: randomUUID(), label: 'x' }), 'NOT_FOUND', 'not_found');
  });
});
