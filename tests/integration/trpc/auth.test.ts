import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { authorizeOperator, SignInRateLimited } from '@/server/auth/authorize-operator';
import { clientAddress, CLIENT_ADDRESS_HEADER } from '@/server/auth/client-address';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import { anonymousCaller, expectTrpcError } from './helpers';

afterAll(() => disconnectDb());

describe('operator sign-in', () => {
  it('accepts the right password and refuses a wrong one or an unknown e-mail', async () => {
    const email = `signin-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'the right password' });
    const ok = await authorizeOperator({ email: email.toUpperCase(), password: 'the right password' }, '10.0.0.1');
    expect(ok).toMatchObject({ email });
    expect(await authorizeOperator({ email, password: 'the wrong password' }, '10.0.0.1')).toBeNull();
    expect(await authorizeOperator({ email: 'nobody@example.com', password: 'whatever password' }, '10.0.0.1')).toBeNull();
    const stored = await getPrisma().operator.findUnique({ where: { email } });
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored?.lastLoginAt).not.toBeNull();
  });

  it('refuses a disabled operator', async () => {
    const email = `disabled-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'the right password' });
    await getPrisma().operator.update({ where: { email }, data: { disabledAt: new Date() } });
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.0.0.2')).toBeNull();
  });

  it('rate limits attempts per e-mail: the 11th within 5 minutes is refused, even with the right password', async () => {
    const email = `limited-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'the right password' });
    for (let attempt = 0; attempt < 10; attempt++) {
      expect(await authorizeOperator({ email, password: `wrong ${attempt}` }, `10.1.0.${attempt}`)).toBeNull();
    }
    await expect(authorizeOperator({ email, password: 'the right password' }, '10.1.1.1')).rejects.toBeInstanceOf(SignInRateLimited);
  });

  it('a successful sign-in gives its attempts back: only failures lock an e-mail', async () => {
    const email = `recovers-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'the right password' });
    for (let attempt = 0; attempt < 9; attempt++) expect(await authorizeOperator({ email, password: `wrong ${attempt}` }, '10.2.0.1')).toBeNull();
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.2.0.1')).toMatchObject({ email });
    for (let attempt = 0; attempt < 10; attempt++) expect(await authorizeOperator({ email, password: `wrong again ${attempt}` }, '10.2.0.2')).toBeNull();
    await expect(authorizeOperator({ email, password: 'the right password' }, '10.2.0.3')).rejects.toBeInstanceOf(SignInRateLimited);
  });

  it('rate limits failures per client address (50 in 5 minutes), whatever the e-mails', async () => {
    const address = `10.3.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}-${randomUUID().slice(0, 4)}`;
    const email = `office-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'the right password' });
    for (let attempt = 0; attempt < 49; attempt++) {
      expect(await authorizeOperator({ email: `guess-${attempt}@example.com`, password: 'a guess' }, address)).toBeNull();
    }
    // A success from the address does not use up its allowance.
    expect(await authorizeOperator({ email, password: 'the right password' }, address)).toMatchObject({ email });
    expect(await authorizeOperator({ email: 'guess-last@example.com', password: 'a guess' }, address)).toBeNull();
    await expect(authorizeOperator({ email, password: 'the right password' }, address)).rejects.toBeInstanceOf(SignInRateLimited);
    expect(await authorizeOperator({ email, password: 'the right password' }, `${address}-elsewhere`)).toMatchObject({ email });
  });
});

describe('the address sign-in attempts are counted under', () => {
  afterEach(() => {
    delete process.env.TRUST_PROXY;
    resetConfigForTests();
  });

  it("is the connection's (set by npm start); X-Forwarded-For only with TRUST_PROXY, and only its last entry", () => {
    const headers = { [CLIENT_ADDRESS_HEADER]: '192.0.2.7', 'x-forwarded-for': '203.0.113.9, 198.51.100.4' };
    expect(clientAddress(headers)).toBe('192.0.2.7');
    expect(clientAddress({})).toBe('unknown');
    process.env.TRUST_PROXY = 'true';
    resetConfigForTests();
    expect(clientAddress(headers)).toBe('198.51.100.4');
    expect(clientAddress({ [CLIENT_ADDRESS_HEADER]: '192.0.2.7' })).toBe('192.0.2.7');
  });
});

describe('every procedure refuses an unauthenticated caller', () => {
  const caller = anonymousCaller();
  const id = randomUUID();
  const calls: [string, () => Promise<unknown>][] = [
    ['overview.get', () => caller.overview.get()],
    ['packages.list', () => caller.packages.list()],
    ['packages.get', () => caller.packages.get({ slug: 'starter' })],
    ['packages.createVersion', () => caller.packages.createVersion({ definition: {}, mode: 'new-package' })],
    ['keys.list', () => caller.keys.list({})],
    ['keys.get', () => caller.keys.get({ id })],
    ['keys.activity', () => caller.keys.activity({ id })],
    ['keys.issue', () => caller.keys.issue({ packageSlug: 'starter' })],
    ['keys.revoke', () => caller.keys.revoke({ id })],
    ['keys.topUp', () => caller.keys.topUp({ id, units: 5 })],
    ['usage.list', () => caller.usage.list({})],
    ['jobs.list', () => caller.jobs.list({})],
    ['jobs.get', () => caller.jobs.get({ id: 'job_x' })],
    ['uploads.list', () => caller.uploads.list({})],
    ['uploads.get', () => caller.uploads.get({ id: 'upl_x' })],
    ['audit.list', () => caller.audit.list({})],
    ['audit.actions', () => caller.audit.actions()],
  ];
  it.each(calls)('%s', async (_name, call) => {
    await expectTrpcError(call(), 'UNAUTHORIZED');
  });

  it('covers every procedure of the router', async () => {
    const { appRouter } = await import('@/server/trpc/app-router');
    expect(Object.keys(appRouter._def.procedures).sort()).toEqual(calls.map(([name]) => name).sort());
  });
});

describe('sessions', () => {
  it('end at sign-in + max age, however often the JWT is re-issued', async () => {
    const { authOptions, SESSION_MAX_AGE_SECONDS } = await import('@/server/auth/auth-options');
    const session = authOptions.callbacks!.session!;
    const withToken = async (signedInAt: number) =>
      (await session({
        session: { user: { email: 'a@example.com' }, expires: '' },
        token: { operatorId: 'op-1', email: 'a@example.com', signedInAt },
      } as never)) as { user?: { id?: string } };
    const fresh = await withToken(Date.now() - 60_000);
    expect(fresh.user?.id).toBe('op-1');
    const stale = await withToken(Date.now() - SESSION_MAX_AGE_SECONDS * 1000 - 1);
    expect(stale.user?.id).toBeUndefined();
    expect(authOptions.session).toMatchObject({ strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS });
  });
});
