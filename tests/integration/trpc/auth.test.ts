import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { authorizeOperator, SignInRateLimited } from '@/server/auth/authorize-operator';
import { clientAddress } from '@/server/auth/client-address';
import { ACCOUNT_AT_ADDRESS, ADDRESS, countAttempt, delaySeconds, throttleKeys, type ThrottlePolicy } from '@/server/auth/sign-in-throttle';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import { anonymousCaller, expectTrpcError } from './helpers';

afterAll(() => disconnectDb());

describe('operator sign-in', () => {
  it('accepts the right password and refuses a wrong one or an unknown e-mail', async () => {
    const email = `signin-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
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
    await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    await getPrisma().operator.update({ where: { email }, data: { disabledAt: new Date() } });
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.0.0.2')).toBeNull();
  });

  it('a stranger cannot keep an operator out: failures slow the guessing address, the operator signs in at once from their own', async () => {
    const email = `aimed-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    const stranger = `10.1.${Math.floor(Math.random() * 250)}.7`;
    let refused = 0;
    for (let attempt = 0; attempt < 12; attempt++) {
      await authorizeOperator({ email, password: `wrong ${attempt}` }, stranger).catch((error: unknown) => {
        expect(error).toBeInstanceOf(SignInRateLimited);
        refused += 1;
      });
    }
    expect(refused).toBeGreaterThan(0); // past 5 failures the stranger waits (the waits are timed below)
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.1.255.1')).toMatchObject({ email });
    // and across instances: the state is in PostgreSQL
    const { rows } = await getPool().query<{ failures: number }>('SELECT failures FROM sign_in_throttles WHERE key = $1', [
      throttleKeys(email, stranger).pair,
    ]);
    expect(rows[0]!.failures).toBeGreaterThanOrEqual(6);
  });

  it('past 5 failures of an account at an address the wait doubles (1 s, 2 s, 4 s, ... up to 15 min); a quiet day forgets them', async () => {
    const keys = throttleKeys(`delay-${randomUUID().slice(0, 8)}@example.com`, '198.51.100.20');
    const pair: [string, ThrottlePolicy][] = [[keys.pair, ACCOUNT_AT_ADDRESS]];
    const t0 = 1_800_000_000_000;
    for (let failure = 1; failure <= 5; failure++) expect(await countAttempt(getPool(), pair, t0)).toEqual({ allowed: true });
    expect(await countAttempt(getPool(), pair, t0)).toEqual({ allowed: true }); // the 6th: then a wait of 1 s
    expect(await countAttempt(getPool(), pair, t0 + 999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await countAttempt(getPool(), pair, t0 + 1_000)).toEqual({ allowed: true }); // the 7th: 2 s
    expect(await countAttempt(getPool(), pair, t0 + 2_500)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await countAttempt(getPool(), pair, t0 + 3_000)).toEqual({ allowed: true }); // the 8th: 4 s
    expect(await countAttempt(getPool(), pair, t0 + 3_000)).toEqual({ allowed: false, retryAfterSeconds: 4 });
    expect([6, 7, 8, 15, 16, 40].map((n) => delaySeconds(n, ACCOUNT_AT_ADDRESS))).toEqual([1, 2, 4, 512, 900, 900]);
    const dayLater = t0 + 3_000 + 86_400_000;
    expect(await countAttempt(getPool(), pair, dayLater)).toEqual({ allowed: true });
    for (let failure = 2; failure <= 5; failure++) expect(await countAttempt(getPool(), pair, dayLater)).toEqual({ allowed: true });
  });

  it('parallel guesses cannot slip past: of 20 at once, the free 5 and the one that starts the wait get through', async () => {
    const keys = throttleKeys(`burst-${randomUUID().slice(0, 8)}@example.com`, '198.51.100.21');
    const now = 1_800_000_100_000;
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        countAttempt(
          getPool(),
          [
            [keys.pair, ACCOUNT_AT_ADDRESS],
            [keys.address, ADDRESS],
          ],
          now,
        ),
      ),
    );
    expect(results.filter((result) => result.allowed)).toHaveLength(6);
  });

  it('an attempt counted while a success from the same operator and address forgets the account row still counts (two tabs signing in at once)', async () => {
    const keys = throttleKeys(`twice-${randomUUID().slice(0, 8)}@example.com`, '198.51.100.22');
    const both: [string, ThrottlePolicy][] = [
      [keys.pair, ACCOUNT_AT_ADDRESS],
      [keys.address, ADDRESS],
    ];
    expect(await countAttempt(getPool(), both)).toEqual({ allowed: true }); // the first tab's attempt: both rows exist
    // The first tab's success (`succeeded`) deletes the account's row while the second tab's attempt waits for it.
    const success = await getPool().connect();
    try {
      await success.query('BEGIN');
      await success.query('SELECT 1 FROM sign_in_throttles WHERE key = $1 FOR UPDATE', [keys.pair]);
      const second = countAttempt(getPool(), both);
      await expect
        .poll(async () => {
          const { rows } = await getPool().query<{ waiting: number }>(
            "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%sign_in_throttles%'",
          );
          return rows[0]!.waiting;
        })
        .toBe(1);
      await success.query('DELETE FROM sign_in_throttles WHERE key = $1', [keys.pair]);
      await success.query('COMMIT');
      expect(await second).toEqual({ allowed: true });
    } finally {
      success.release();
    }
    const { rows } = await getPool().query<{ failures: number }>('SELECT failures FROM sign_in_throttles WHERE key = $1', [keys.pair]);
    expect(rows).toEqual([{ failures: 1 }]);
  });

  it('a successful sign-in gives its attempts back: only failures slow an account at an address', async () => {
    const email = `recovers-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    for (let attempt = 0; attempt < 4; attempt++)
      expect(await authorizeOperator({ email, password: `wrong ${attempt}` }, '10.2.0.1')).toBeNull();
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.2.0.1')).toMatchObject({ email });
    for (let attempt = 0; attempt < 5; attempt++)
      expect(await authorizeOperator({ email, password: `wrong again ${attempt}` }, '10.2.0.1')).toBeNull();
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.2.0.1')).toMatchObject({ email });
  });

  it('slows failures per client address (50 free), whatever the e-mails; the operator elsewhere is not slowed', async () => {
    const address = `10.3.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}-${randomUUID().slice(0, 4)}`;
    const email = `office-${randomUUID().slice(0, 8)}@example.com`;
    await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    for (let attempt = 0; attempt < 49; attempt++) {
      expect(await authorizeOperator({ email: `guess-${attempt}@example.com`, password: 'a guess' }, address)).toBeNull();
    }
    // A success from the address does not use up its allowance.
    expect(await authorizeOperator({ email, password: 'the right password' }, address)).toMatchObject({ email });
    expect(await authorizeOperator({ email: 'guess-last@example.com', password: 'a guess' }, address)).toBeNull();
    expect(await authorizeOperator({ email: 'guess-past@example.com', password: 'a guess' }, address)).toBeNull(); // the 51st: then 1 s
    await expect(authorizeOperator({ email, password: 'the right password' }, address)).rejects.toBeInstanceOf(SignInRateLimited);
    expect(await authorizeOperator({ email, password: 'the right password' }, `${address}-elsewhere`)).toMatchObject({ email });
  });
});

describe('the address sign-in attempts are counted under', () => {
  afterEach(() => {
    delete process.env.TRUST_PROXY;
    resetConfigForTests();
  });

  it("is the connection's (npm start's server knows it); X-Forwarded-For only with TRUST_PROXY, and only its last entry", () => {
    const connection = { peerAddress: '192.0.2.7', target: '/api/auth/callback/credentials' };
    const headers = new Headers({ 'x-forwarded-for': '203.0.113.9, 198.51.100.4' });
    expect(clientAddress(connection, headers)).toBe('192.0.2.7');
    expect(clientAddress(undefined, headers)).toBe('unknown');
    process.env.TRUST_PROXY = 'true';
    resetConfigForTests();
    expect(clientAddress(connection, headers)).toBe('198.51.100.4');
    expect(clientAddress(connection, new Headers())).toBe('192.0.2.7');
  });

  it('without a connection (next start, Vercel), only the platform header CLIENT_ADDRESS_HEADER names, never X-Forwarded-For', () => {
    const headers = new Headers({ 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '198.51.100.4' });
    process.env.TRUST_PROXY = 'true';
    resetConfigForTests();
    expect(clientAddress(undefined, headers)).toBe('unknown');
    process.env.CLIENT_ADDRESS_HEADER = 'X-Real-IP';
    resetConfigForTests();
    try {
      expect(clientAddress(undefined, headers)).toBe('198.51.100.4');
      expect(clientAddress(undefined, new Headers({ 'x-real-ip': '203.0.113.1, 198.51.100.9' }))).toBe('198.51.100.9');
      // npm start's server knows the connection: the platform's header is not its business
      expect(clientAddress({ peerAddress: '192.0.2.7', target: '/' }, headers)).toBe('203.0.113.9');
    } finally {
      delete process.env.CLIENT_ADDRESS_HEADER;
      resetConfigForTests();
    }
  });
});

describe('every procedure refuses an unauthenticated caller', () => {
  const caller = anonymousCaller();
  const id = randomUUID();
  const calls: [string, () => Promise<unknown>][] = [
    ['overview.get', () => caller.overview.get()],
    ['packages.list', () => caller.packages.list()],
    ['packages.versionQuotas', () => caller.packages.versionQuotas()],
    ['packages.get', () => caller.packages.get({ slug: 'starter' })],
    ['packages.createVersion', () => caller.packages.createVersion({ definition: {}, mode: 'new-package' })],
    ['providers.list', () => caller.providers.list()],
    ['providers.setKey', () => caller.providers.setKey({ provider: 'main', apiKey: 'sk-anything' })],
    ['providers.overview', () => caller.providers.overview()],
    ['providers.get', () => caller.providers.get({ name: 'main' })],
    ['providers.engineChoices', () => caller.providers.engineChoices()],
    ['providers.save', () => caller.providers.save({ name: 'main', mode: 'create', entry: { type: 'groq' } })],
    ['providers.test', () => caller.providers.test({ provider: 'main', model: 'm' })],
    ['refusals.overview', () => caller.refusals.overview()],
    ['refusals.byKey', () => caller.refusals.byKey({ id: '00000000-0000-4000-8000-000000000000' })],
    ['refusals.keys', () => caller.refusals.keys({ range: '14d', limit: 5 })],
    ['packages.diff', () => caller.packages.diff({ slug: 'starter', from: 1, to: 1 })],
    ['packages.setArchived', () => caller.packages.setArchived({ slug: 'starter', archived: true })],
    ['keys.list', () => caller.keys.list({})],
    ['keys.get', () => caller.keys.get({ id })],
    ['keys.activity', () => caller.keys.activity({ id })],
    ['keys.issue', () => caller.keys.issue({ packageSlug: 'starter' })],
    ['keys.revoke', () => caller.keys.revoke({ id })],
    ['keys.topUp', () => caller.keys.topUp({ id, units: 5 })],
    ['keys.updateLabel', () => caller.keys.updateLabel({ id, label: 'x' })],
    ['keys.webhook', () => caller.keys.webhook({ id })],
    ['keys.setWebhook', () => caller.keys.setWebhook({ id, url: 'https://example.com/hook' })],
    ['keys.rotateWebhookSecret', () => caller.keys.rotateWebhookSecret({ id })],
    ['keys.clearWebhook', () => caller.keys.clearWebhook({ id })],
    ['keys.resendDelivery', () => caller.keys.resendDelivery({ id, deliveryId: `msg_${'0'.repeat(32)}` })],
    ['usage.list', () => caller.usage.list({})],
    ['usage.totals', () => caller.usage.totals({})],
    ['usage.csv', () => caller.usage.csv({})],
    ['jobs.list', () => caller.jobs.list({})],
    ['jobs.get', () => caller.jobs.get({ id: 'job_x' })],
    ['jobs.resultLink', () => caller.jobs.resultLink({ id: 'job_x' })],
    ['uploads.list', () => caller.uploads.list({})],
    ['uploads.get', () => caller.uploads.get({ id: 'upl_x' })],
    ['uploads.fileLink', () => caller.uploads.fileLink({ id: 'upl_x' })],
    ['uploads.usedBy', () => caller.uploads.usedBy({ id: 'upl_x' })],
    ['audit.list', () => caller.audit.list({})],
    ['audit.actions', () => caller.audit.actions()],
    ['margin.report', () => caller.margin.report()],
    ['margin.packages', () => caller.margin.packages()],
    ['margin.keys', () => caller.margin.keys()],
    ['margin.unpricedBudgets', () => caller.margin.unpricedBudgets()],
    ['sales.list', () => caller.sales.list()],
    ['sales.forKey', () => caller.sales.forKey({ id })],
    ['sales.flags', () => caller.sales.flags()],
    ['sales.keyOwner', () => caller.sales.keyOwner({ id })],
    ['sales.setBuyerEmail', () => caller.sales.setBuyerEmail({ id, email: 'buyer@example.com' })],
    ['sales.reinstateKey', () => caller.sales.reinstateKey({ id })],
    ['operators.list', () => caller.operators.list()],
    ['operators.setRole', () => caller.operators.setRole({ email: 'a@example.com', role: 'admin' })],
    ['operators.setDisabled', () => caller.operators.setDisabled({ email: 'a@example.com', disabled: true })],
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
    const { startOperatorSession } = await import('@/server/auth/operator-sessions');
    const email = `session-${randomUUID().slice(0, 8)}@example.com`;
    const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    const sessionId = await startOperatorSession(operator.id, SESSION_MAX_AGE_SECONDS);
    const withToken = async (signedInAt: number) =>
      (await authOptions.callbacks!.session!({
        session: { user: { email }, expires: '' },
        token: { operatorId: operator.id, email, signedInAt, sessionId },
      } as never)) as { user?: { id?: string }; sessionId?: string };
    const fresh = await withToken(Date.now() - 60_000);
    expect(fresh.user?.id).toBe(operator.id);
    expect(fresh.sessionId).toBe(sessionId);
    const stale = await withToken(Date.now() - SESSION_MAX_AGE_SECONDS * 1000 - 1);
    expect(stale.user).toBeUndefined();
    expect(stale.sessionId).toBeUndefined();
    expect(authOptions.session).toMatchObject({ strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS });
  });

  it('a JWT from before server-side sessions (no session id) signs no one in', async () => {
    const { authOptions } = await import('@/server/auth/auth-options');
    const result = (await authOptions.callbacks!.session!({
      session: { user: { email: 'a@example.com' }, expires: '' },
      token: { operatorId: 'op-1', email: 'a@example.com', signedInAt: Date.now() },
    } as never)) as { user?: { id?: string } };
    expect(result.user).toBeUndefined();
  });

  it('next-auth redirects only within this site, and a URL it cannot parse (a planted cookie) is no error', async () => {
    const { authOptions } = await import('@/server/auth/auth-options');
    const redirect = (url: string) => authOptions.callbacks!.redirect!({ url, baseUrl: 'http://127.0.0.1:3000' });
    expect(await redirect('/keys?status=active')).toBe('http://127.0.0.1:3000/keys?status=active');
    expect(await redirect('http://127.0.0.1:3000/usage')).toBe('http://127.0.0.1:3000/usage');
    for (const url of [
      'http://[',
      'https://evil.example/',
      '//evil.example',
      'http://127.0.0.1:3000.evil.example/',
      'javascript:alert(1)',
      '',
    ]) {
      expect(await redirect(url), url).toBe('http://127.0.0.1:3000');
    }
  });

  it('sign-in records a session that sign-out ends on the server (a copied cookie stops working)', async () => {
    const { authOptions } = await import('@/server/auth/auth-options');
    const { isLiveOperatorSession } = await import('@/server/auth/operator-sessions');
    const email = `session-${randomUUID().slice(0, 8)}@example.com`;
    const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    const token = await authOptions.callbacks!.jwt!({
      token: {},
      user: { id: operator.id, email },
      account: { provider: 'credentials', type: 'credentials', providerAccountId: operator.id },
    } as never);
    expect(typeof token.sessionId).toBe('string');
    const sessionId = token.sessionId as string;
    expect(await isLiveOperatorSession(sessionId, operator.id)).toBe(true);
    // The same session id under another operator is no session at all.
    expect(await isLiveOperatorSession(sessionId, randomUUID())).toBe(false);

    await authOptions.events!.signOut!({ token } as never);
    expect(await isLiveOperatorSession(sessionId, operator.id)).toBe(false);
    const row = await getPrisma().operatorSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect(row.endedAt).not.toBeNull();
    // Signing out twice (two tabs) changes nothing.
    await authOptions.events!.signOut!({ token } as never);
    expect((await getPrisma().operatorSession.findUniqueOrThrow({ where: { id: sessionId } })).endedAt).toEqual(row.endedAt);
  });

  it('disabling an operator ends their open sessions; enabling again opens none', async () => {
    const { isLiveOperatorSession, startOperatorSession } = await import('@/server/auth/operator-sessions');
    const { setOperatorDisabled } = await import('@/server/domain/operators/disable-operator');
    const email = `disable-${randomUUID().slice(0, 8)}@example.com`;
    const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    const sessions = [await startOperatorSession(operator.id, 3600), await startOperatorSession(operator.id, 3600)];
    expect(await setOperatorDisabled(getSqlDb(), CLI_ACTOR, email, true)).toMatchObject({ disabled: true, sessions_ended: 2 });
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.9.0.1')).toBeNull();
    expect(await setOperatorDisabled(getSqlDb(), CLI_ACTOR, email, false)).toMatchObject({ disabled: false, sessions_ended: 0 });
    for (const id of sessions) expect(await isLiveOperatorSession(id, operator.id)).toBe(false); // ended for good
    expect(await authorizeOperator({ email, password: 'the right password' }, '10.9.0.1')).toMatchObject({ email });
    const audit = await getPrisma().auditLog.findMany({
      where: { targetId: operator.id },
      orderBy: { id: 'asc' },
      select: { action: true },
    });
    expect(audit.map((row) => row.action)).toEqual(['operator.create', 'operator.disable', 'operator.enable']);
    await expect(setOperatorDisabled(getSqlDb(), CLI_ACTOR, 'nobody@example.com', true)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a session ends when its operator is disabled or its time is up, and housekeeping deletes old rows', async () => {
    const { deleteFinishedOperatorSessions, isLiveOperatorSession, startOperatorSession } = await import('@/server/auth/operator-sessions');
    const email = `session-${randomUUID().slice(0, 8)}@example.com`;
    const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'the right password' });
    const live = await startOperatorSession(operator.id, 3600);
    const expired = await startOperatorSession(operator.id, 3600);
    const longGone = await startOperatorSession(operator.id, 3600);
    await getPrisma().operatorSession.update({ where: { id: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await getPrisma().operatorSession.update({ where: { id: longGone }, data: { expiresAt: new Date(Date.now() - 25 * 3600 * 1000) } });
    expect(await isLiveOperatorSession(live, operator.id)).toBe(true);
    expect(await isLiveOperatorSession(expired, operator.id)).toBe(false);

    await deleteFinishedOperatorSessions();
    const left = await getPrisma().operatorSession.findMany({ where: { operatorId: operator.id }, select: { id: true } });
    expect(left.map((row) => row.id).sort()).toEqual([live, expired].sort());

    await getPrisma().operator.update({ where: { id: operator.id }, data: { disabledAt: new Date() } });
    expect(await isLiveOperatorSession(live, operator.id)).toBe(false);
  });
});
