import { getConfig } from '../config';
import { getPool, getPrisma } from '../db/client';
import { isApiError } from '../domain/errors';
import { noteFailedAuthentication, refuseFailingAddress } from '../domain/rate-limit/auth-failures';
import { ACCOUNT_AT_ADDRESS, ADDRESS, countAttempt, succeeded, throttleKeys } from './sign-in-throttle';
import { codePointLength } from '../contract/fields';

// Checks an operator's e-mail and password. Attempts are throttled in PostgreSQL (shared by every
// instance, sign-in-throttle.ts) per account at the client's address and per address: a growing
// delay that slows the guesser's address, never the operator signing in from their own. Over
// either, nothing is checked. A successful sign-in gives its attempt back. A failed one also
// counts towards the address's failed authentications, the one count that /v1 and
// the portal's sign-in share (domain/rate-limit/auth-failures.ts): past it, nothing is checked either.

export class SignInRateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many sign-in attempts. Wait a little and try again: each failed attempt makes the wait longer.');
    this.name = 'SignInRateLimited';
  }
}

// A real argon2id hash of a random string: unknown e-mails cost as much time as known ones.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$4hRrFX4fDI4Kl9UO4aATXg$IcCHjpG37NFYTfdBIRGmREVgaR19kdtCYvrzgi+IAxM';

export interface SignedInOperator {
  id: string;
  email: string;
  name: string | null;
}

export async function authorizeOperator(
  credentials: { email?: unknown; password?: unknown },
  clientAddress = 'unknown',
): Promise<SignedInOperator | null> {
  const email = typeof credentials.email === 'string' ? credentials.email.trim().toLowerCase() : '';
  const password = typeof credentials.password === 'string' ? credentials.password : '';
  if (!email || !password || email.length > 320 || password.length > 400 || codePointLength(password) > 200) return null;

  refuseFailingAddressAsSignIn(clientAddress);
  // Counted first (atomic, so parallel guesses cannot slip past the limit).
  const keys = throttleKeys(email, clientAddress);
  const attempt = await countAttempt(getPool(), [
    [keys.pair, ACCOUNT_AT_ADDRESS],
    [keys.address, ADDRESS],
  ]);
  if (!attempt.allowed) throw new SignInRateLimited(attempt.retryAfterSeconds);

  const db = getPrisma();
  const operator = await db.operator.findUnique({ where: { email } });
  // The native argon2 package is loaded by the first sign-in, not by every process importing this.
  const { verify } = await import('@node-rs/argon2');
  const valid = await verify(operator?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
  if (!operator || !valid || operator.disabledAt) {
    await noteFailedAuthentication(clientAddress);
    return null;
  }

  await db.operator.update({ where: { id: operator.id }, data: { lastLoginAt: new Date() } });
  await succeeded(getPool(), keys.pair, keys.address);
  return { id: operator.id, email: operator.email, name: operator.name };
}

/** The address's failed authentications (in memory, no query) past the limit: the sign-in's own refusal. */
function refuseFailingAddressAsSignIn(address: string): void {
  try {
    refuseFailingAddress(address, getConfig().AUTH_FAILURES_PER_MINUTE);
  } catch (error) {
    if (isApiError(error) && error.code === 'rate_limited') throw new SignInRateLimited(error.retryAfter ?? 60);
    throw error;
  }
}

/** Operators signing in through OAuth must already exist (created with the CLI) and be enabled. */
export async function findOperatorByEmail(email: string): Promise<SignedInOperator | null> {
  const operator = await getPrisma().operator.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!operator || operator.disabledAt) return null;
  return { id: operator.id, email: operator.email, name: operator.name };
}
