import { verify } from '@node-rs/argon2';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { getPool, getPrisma } from '../db/client';

// Checks an operator's e-mail and password. Attempts are counted in PostgreSQL (shared by every
// instance) per e-mail (10 in 5 minutes) and per client address (50: several operators may sign
// in from one office or proxy); over either limit nothing is checked. A successful sign-in gives
// its attempts back, so only failures lock an e-mail or an address.

export class SignInRateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many sign-in attempts. Try again in a few minutes.');
    this.name = 'SignInRateLimited';
  }
}

const WINDOW_SECONDS = 300;
const limiters = new Map<string, RateLimiterPostgres>();

function signInLimiter(kind: 'email' | 'address'): RateLimiterPostgres {
  let limiter = limiters.get(kind);
  if (!limiter) {
    limiter = new RateLimiterPostgres({
      storeClient: getPool(),
      tableName: 'rate_limits',
      tableCreated: true,
      keyPrefix: `signin-${kind}`,
      points: kind === 'email' ? 10 : 50,
      duration: WINDOW_SECONDS,
    });
    limiters.set(kind, limiter);
  }
  return limiter;
}

// A real argon2id hash of a random string: unknown e-mails cost as much time as known ones.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$4hRrFX4fDI4Kl9UO4aATXg$IcCHjpG37NFYTfdBIRGmREVgaR19kdtCYvrzgi+IAxM';

export interface SignedInOperator {
  id: string;
  email: string;
  name: string | null;
}

/** Counts the attempt first (atomic, so parallel guesses cannot slip past the limit). */
async function consume(kind: 'email' | 'address', key: string): Promise<void> {
  try {
    await signInLimiter(kind).consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw new SignInRateLimited(Math.ceil(error.msBeforeNext / 1000));
    throw error;
  }
}

export async function authorizeOperator(
  credentials: { email?: unknown; password?: unknown },
  clientAddress = 'unknown',
): Promise<SignedInOperator | null> {
  const email = typeof credentials.email === 'string' ? credentials.email.trim().toLowerCase() : '';
  const password = typeof credentials.password === 'string' ? credentials.password : '';
  if (!email || !password || email.length > 320 || password.length > 200) return null;

  await consume('email', email);
  await consume('address', clientAddress);

  const db = getPrisma();
  const operator = await db.operator.findUnique({ where: { email } });
  const valid = await verify(operator?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
  if (!operator || !valid || operator.disabledAt) return null;

  await db.operator.update({ where: { id: operator.id }, data: { lastLoginAt: new Date() } });
  await Promise.all([signInLimiter('email').delete(email), signInLimiter('address').reward(clientAddress, 1)]);
  return { id: operator.id, email: operator.email, name: operator.name };
}

/** Operators signing in through OAuth must already exist (created with the CLI) and be enabled. */
export async function findOperatorByEmail(email: string): Promise<SignedInOperator | null> {
  const operator = await getPrisma().operator.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!operator || operator.disabledAt) return null;
  return { id: operator.id, email: operator.email, name: operator.name };
}
