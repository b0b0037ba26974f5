import { randomUUID } from 'node:crypto';
import type { Account, User } from 'next-auth';
import type { JWT } from 'next-auth/jwt';
import { afterAll, describe, expect, it } from 'vitest';
import { authOptions } from '@/server/auth/auth-options';
import { isVerifiedOAuthEmail } from '@/server/auth/verified-email';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';

// "Sign in with GitHub/Google" (offered when their credentials are set): the provider checks
// who the person is; the service lets in only the e-mail of an operator who is not disabled.

afterAll(() => disconnectDb());

const github = (): Account => ({ provider: 'github', type: 'oauth', providerAccountId: randomUUID() });
const google = (): Account => ({ provider: 'google', type: 'oauth', providerAccountId: randomUUID() });
/** A Google sign-in whose profile says the address is verified (unless told otherwise). */
const signIn = (email: string | null, verified = true) =>
  authOptions.callbacks!.signIn!({
    user: { id: randomUUID(), email } as User,
    account: google(),
    profile: { email: email ?? undefined, email_verified: verified },
  } as Parameters<NonNullable<NonNullable<typeof authOptions.callbacks>['signIn']>>[0]);

async function newOperator() {
  const email = `oauth-${randomUUID().slice(0, 8)}@example.com`;
  const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'a long enough password' });
  return { ...operator, email };
}

describe('OAuth sign-in', () => {
  it('lets in the e-mail of an operator (any case), and the session names that operator', async () => {
    const operator = await newOperator();
    expect(await signIn(operator.email.toUpperCase())).toBe(true);
    const token = await authOptions.callbacks!.jwt!({
      token: {} as JWT,
      user: { id: 'github-user', email: operator.email } as User,
      account: github(),
    } as Parameters<NonNullable<NonNullable<typeof authOptions.callbacks>['jwt']>>[0]);
    expect(token.operatorId).toBe(operator.id);
  });

  it('refuses an unknown e-mail, a missing one and a disabled operator', async () => {
    expect(await signIn(`nobody-${randomUUID()}@example.com`)).toBe(false);
    expect(await signIn(null)).toBe(false);
    const operator = await newOperator();
    await getPrisma().operator.update({ where: { id: operator.id }, data: { disabledAt: new Date() } });
    expect(await signIn(operator.email)).toBe(false);
  });

  it("refuses an operator's e-mail that the identity provider has not verified", async () => {
    const operator = await newOperator();
    expect(await signIn(operator.email, false)).toBe(false);
    // GitHub's profile says nothing of verification: without its list of verified addresses, no.
    const unverifiable = await authOptions.callbacks!.signIn!({
      user: { id: randomUUID(), email: operator.email } as User,
      account: github(),
    } as Parameters<NonNullable<NonNullable<typeof authOptions.callbacks>['signIn']>>[0]);
    expect(unverifiable).toBe(false);
  });
});

describe('isVerifiedOAuthEmail', () => {
  const emails = (list: unknown, status = 200) => {
    const calls: { url: string; authorization: string | undefined }[] = [];
    const fetchEmails = async (url: string, init: { headers: Record<string, string> }) => {
      calls.push({ url, authorization: init.headers.Authorization });
      return new Response(JSON.stringify(list), { status });
    };
    return { calls, fetchEmails };
  };

  it("GitHub: only an address its list marks verified, read with the sign-in's token", async () => {
    const { calls, fetchEmails } = emails([
      { email: 'ops@example.com', verified: true, primary: true },
      { email: 'claimed@example.com', verified: false, primary: false },
    ]);
    const check = (email: string) => isVerifiedOAuthEmail({ provider: 'github', email, accessToken: 'gho_token' }, fetchEmails);
    expect(await check('OPS@example.com')).toBe(true);
    expect(await check('claimed@example.com')).toBe(false);
    expect(await check('absent@example.com')).toBe(false);
    expect(calls[0]).toEqual({ url: 'https://api.github.com/user/emails', authorization: 'Bearer gho_token' });
    expect(
      await isVerifiedOAuthEmail({ provider: 'github', email: 'ops@example.com', accessToken: 't' }, emails([], 401).fetchEmails),
    ).toBe(false);
    expect(await isVerifiedOAuthEmail({ provider: 'github', email: 'ops@example.com' }, fetchEmails)).toBe(false);
  });

  it('Google: the profile says email_verified for that very address', async () => {
    const google = (profile: unknown) => isVerifiedOAuthEmail({ provider: 'google', email: 'ops@example.com', profile });
    expect(await google({ email: 'ops@example.com', email_verified: true })).toBe(true);
    expect(await google({ email: 'ops@example.com', email_verified: false })).toBe(false);
    expect(await google({ email: 'ops@example.com', email_verified: 'true' })).toBe(false);
    expect(await google({ email: 'other@example.com', email_verified: true })).toBe(false);
    expect(await isVerifiedOAuthEmail({ provider: 'other', email: 'ops@example.com', profile: { email_verified: true } })).toBe(false);
  });
});
