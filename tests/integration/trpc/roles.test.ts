import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { liveSessionRole, startOperatorSession } from '@/server/auth/operator-sessions';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import type { OperatorRole } from '@/server/contract/dashboard/roles';
import { expectTrpcError, operatorCaller, seedPackage, uniqueSlug } from './helpers';

// Operator roles, enforced by the procedures themselves (server/trpc/init.ts): what each role may
// do, and the FORBIDDEN answer for what it may not, whatever page the call came from.

afterAll(() => disconnectDb());

const providerName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** A package, a key on it and a provider, made by an owner for the others to read and change. */
async function world() {
  const { caller: owner } = await operatorCaller('owner');
  const slug = uniqueSlug('roles');
  await seedPackage(slug);
  const key = await owner.keys.issue({ packageSlug: slug, label: 'for roles' });
  const provider = providerName('roles');
  await owner.providers.save({ name: provider, mode: 'create', entry: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } });
  return { owner, slug, key, provider };
}

async function readsEverything(caller: Awaited<ReturnType<typeof operatorCaller>>['caller'], slug: string, keyId: string) {
  expect((await caller.packages.list()).map((p) => p.slug)).toContain(slug);
  expect(await caller.keys.get({ id: keyId })).toMatchObject({ id: keyId });
  await caller.keys.list({ packageSlug: slug });
  expect(await caller.keys.webhook({ id: keyId })).toMatchObject({ deliveries: [] });
  await caller.providers.list();
  await caller.providers.overview();
  await caller.overview.get();
  await caller.usage.list({});
  await caller.jobs.list({});
  await caller.uploads.list({});
  await caller.audit.list({});
  await caller.refusals.overview({});
  expect(await caller.margin.report({ package: slug })).toMatchObject({ currency: 'USD' });
  await caller.margin.packages({ sort: 'margin_asc' });
  await caller.margin.keys({ sort: 'margin_desc' });
}

describe('operator roles in the dashboard API', () => {
  it('a viewer reads everything and changes nothing (FORBIDDEN)', async () => {
    const { slug, key, provider } = await world();
    const { caller } = await operatorCaller('viewer');
    await readsEverything(caller, slug, key.id);
    await expectTrpcError(caller.keys.issue({ packageSlug: slug }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.revoke({ id: key.id }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.topUp({ id: key.id, units: 5 }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.updateLabel({ id: key.id, label: 'x' }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.setWebhook({ id: key.id, url: 'https://example.com/hook' }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.rotateWebhookSecret({ id: key.id }), 'FORBIDDEN');
    await expectTrpcError(caller.keys.clearWebhook({ id: key.id }), 'FORBIDDEN');
    await expectTrpcError(caller.packages.setArchived({ slug, archived: true }), 'FORBIDDEN');
    await expectTrpcError(caller.packages.createVersion({ definition: {}, mode: 'new-version' }), 'FORBIDDEN');
    await expectTrpcError(caller.providers.save({ name: provider, mode: 'update', entry: { type: 'openai-compatible' } }), 'FORBIDDEN');
    await expectTrpcError(
      caller.providers.save({
        name: provider,
        mode: 'update',
        entry: { type: 'openai-compatible', prices: { 'some-model': { input_per_mtok: 1 } } } as never,
      }),
      'FORBIDDEN',
    );
    await expectTrpcError(caller.providers.test({ provider } as never), 'FORBIDDEN');
    await expectTrpcError(caller.providers.setKey({ provider, apiKey: 'sk-viewer' }), 'FORBIDDEN');
    await expectTrpcError(caller.operators.list(), 'FORBIDDEN');
    await expectTrpcError(caller.operators.setRole({ email: 'x@example.com', role: 'owner' }), 'FORBIDDEN');
    // Nothing changed.
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({ status: 'active', remainingUnits: 100 });
    expect((await getPrisma().package.findUniqueOrThrow({ where: { slug } })).archivedAt).toBeNull();
  });

  it('an admin changes packages, keys and providers, but not provider keys or operators', async () => {
    const { slug, key, provider } = await world();
    const { caller, operator } = await operatorCaller('admin');
    await readsEverything(caller, slug, key.id);
    const issued = await caller.keys.issue({ packageSlug: slug, label: 'by an admin' });
    await caller.keys.topUp({ id: issued.id, units: 5 });
    await caller.keys.revoke({ id: issued.id });
    await caller.packages.setArchived({ slug, archived: true });
    await caller.packages.setArchived({ slug, archived: false });
    await caller.providers.save({
      name: provider,
      mode: 'update',
      entry: { type: 'openai-compatible', base_url: 'http://127.0.0.1:8/v1' },
    });
    await expectTrpcError(caller.providers.setKey({ provider, apiKey: 'sk-admin' }), 'FORBIDDEN');
    await expectTrpcError(caller.operators.list(), 'FORBIDDEN');
    await expectTrpcError(caller.operators.setRole({ email: operator.email, role: 'owner' }), 'FORBIDDEN');
    await expectTrpcError(caller.operators.setDisabled({ email: operator.email, disabled: true }), 'FORBIDDEN');
    expect(await getPrisma().operator.findUniqueOrThrow({ where: { id: operator.id } })).toMatchObject({ role: 'admin', disabledAt: null });
    expect(await getPrisma().providerKey.count({ where: { provider } })).toBe(0);
  });

  it('an owner sets provider keys and roles (audited); a role change applies at the next request', async () => {
    const { provider } = await world();
    const { caller, operator: owner } = await operatorCaller('owner');
    await caller.providers.setKey({ provider, apiKey: 'sk-by-the-owner' });
    const email = `promoted-${randomUUID().slice(0, 8)}@example.com`;
    const other = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'a long enough password' });
    expect(other.role).toBe('viewer');
    const session = await startOperatorSession(other.id, 600);
    expect(await liveSessionRole(session, other.id)).toBe('viewer');

    expect(await caller.operators.setRole({ email, role: 'admin' })).toMatchObject({ email, role: 'admin' });
    expect(await liveSessionRole(session, other.id)).toBe('admin');
    expect((await caller.operators.list()).find((o) => o.email === email)).toMatchObject({ role: 'admin', disabled: false });
    const audit = await getPrisma().auditLog.findFirstOrThrow({ where: { action: 'operator.role', targetId: other.id } });
    expect(audit).toMatchObject({ actorType: 'operator', actorId: owner.id, before: { role: 'viewer' }, after: { email, role: 'admin' } });

    await caller.operators.setDisabled({ email, disabled: true });
    expect(await liveSessionRole(session, other.id)).toBeNull();
    await expectTrpcError(caller.operators.setRole({ email, role: 'root' as OperatorRole }), 'BAD_REQUEST');
    await expectTrpcError(caller.operators.setRole({ email: 'nobody@example.com', role: 'admin' }), 'NOT_FOUND');
  });

  it('the last enabled owner can be neither demoted nor disabled', async () => {
    const { caller, operator } = await operatorCaller('owner');
    // Leave exactly one enabled owner, this test's, for as long as the test runs (the database is shared).
    const others = await getPrisma().operator.findMany({ where: { role: 'owner', id: { not: operator.id } }, select: { id: true } });
    const ids = others.map((other) => other.id);
    await getPrisma().operator.updateMany({ where: { id: { in: ids } }, data: { role: 'admin' } });
    onTestFinished(() =>
      getPrisma()
        .operator.updateMany({ where: { id: { in: ids } }, data: { role: 'owner' } })
        .then(() => undefined),
    );
    // The Operators page offers the last owner no change (it offered both, then refused them: admin pages audit).
    const listed = await caller.operators.list();
    expect(listed.filter((row) => row.last_owner).map((row) => row.email)).toEqual([operator.email]);
    await expectTrpcError(caller.operators.setRole({ email: operator.email, role: 'viewer' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    const refused = await expectTrpcError(caller.operators.setDisabled({ email: operator.email, disabled: true }), 'UNPROCESSABLE_CONTENT');
    expect(refused.message).toContain('last owner');
    expect(await getPrisma().operator.findUniqueOrThrow({ where: { id: operator.id } })).toMatchObject({ role: 'owner', disabledAt: null });
    // With a second owner, the first may step down.
    const second = await createOperator(getSqlDb(), CLI_ACTOR, {
      email: `owner-${randomUUID().slice(0, 8)}@example.com`,
      password: 'a long enough password',
      role: 'owner',
    });
    expect((await caller.operators.list()).filter((row) => row.last_owner)).toEqual([]);
    expect(await caller.operators.setRole({ email: operator.email, role: 'admin' })).toMatchObject({ role: 'admin' });
    expect(second.role).toBe('owner');
  });
});
