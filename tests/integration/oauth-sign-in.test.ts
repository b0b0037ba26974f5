import { randomUUID } from 'node:crypto';
import type { Account, User } from 'next-auth';
import type { JWT } from 'next-auth/jwt';
import { afterAll, describe, expect, it } from 'vitest';
import { authOptions } from '@/server/auth/auth-options';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';

// "Sign in with GitHub/Google" (offered when their credentials are set): the provider checks
// who the person is; the service lets in only the e-mail of an operator who is not disabled.

afterAll(() => disconnectDb());

const github = (): Account => ({ provider: 'github', type: 'oauth', providerAccountId: randomUUID() });
const signIn = (email: string | null) =>
  authOptions.callbacks!.signIn!({ user: { id: randomUUID(), email } as User, account: github() } as Parameters<
    NonNullable<NonNullable<typeof authOptions.callbacks>['signIn']>
  >[0]);

async function newOperator() {
  const email = `oauth-${randomUUID().slice(0, 8)}@example.com`;
  const operator = await createOperator(getPrisma(), CLI_ACTOR, { email, password: 'a long enough password' });
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
});
