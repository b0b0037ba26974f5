import { verify } from '@node-rs/argon2';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { getPool, getPrisma } from '../db/client';

// Checks an operator's e-mail and password. Attempts are counted per e-mail and per client
// address in PostgreSQL (shared by every instance); over the limit, nothing is checked.

export class SignInRateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many sign-in attempts. Try again in a few minutes.');
    this.name = 'SignInRateLimited';
  }
}

let limiter: RateLimiterPostgres | undefined;

function signInLimiter(): RateLimiterPostgres {
  limiter ??= new RateLimiterPostgres({
    storeClient: getPool(),
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: 'signin',
    points: 10,
    duration: 300,
  });
  return limiter;
}

// A real argon2id hash of a random string: unknown e-mails cost as much time as known ones.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$4hRrFX4fDI4Kl9UO4aATXg$IcCHjpG37NFYTfdBIRGmREVgaR19kdtCYvrzgi+IAxM';

export interface SignedInOperator {
  id: string;
  email: string;
  name: string | null;
}

async function consume(key: string): Promise<void> {
  try {
    await signInLimiter().consume(key);
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

  await consume(`email:${email}`);
  await consume(`ip:${clientAddress}`);

  const db = getPrisma();
  const operator = await db.operator.findUnique({ where: { email } });
  const valid = await verify(operator?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
  if (!operator || !valid || operator.disabledAt) return null;

  await db.operator.update({ where: { id: operator.id }, data: { lastLoginAt: new Date() } });
  return { id: operator.id, email: operator.email, name: operator.name };
}

/** Operators signing in through OAuth must already exist (created with the CLI) and be enabled. */
export async function findOperatorByEmail(email: string): Promise<SignedInOperator | null> {
  const operator = await getPrisma().operator.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!operator || operator.disabledAt) return null;
  return { id: operator.id, email: operator.email, name: operator.name };
}
