import type pg from 'pg';
import { addressGroup } from '../domain/rate-limit/auth-failures';
import sql from 'sql-template-tag';
import { prepared } from '../db/named-statement';

// Operator sign-in throttling that no one can aim at someone else. Failures are counted per
// account *and* address together (a stranger's guesses slow only the stranger's address for that
// account, never the operator signing in from elsewhere) and per address across accounts (one
// address spraying many e-mails). Past a free allowance each failure doubles the wait before the
// next attempt, up to a cap; a quiet period forgets the count. The state lives in PostgreSQL
// (sign_in_throttles), shared by every instance, on the database's clock. An attempt is counted
// before the password is checked, in one transaction with both rows locked, so parallel guesses
// cannot slip past; a success then gives its attempt back.

export interface ThrottlePolicy {
  /** Failures allowed before any wait. */
  free: number;
  /** The wait after the first failure past the free ones; each further failure doubles it. */
  baseSeconds: number;
  maxSeconds: number;
  /** A count whose latest failure is this old starts again from zero. */
  forgetSeconds: number;
}

export const ACCOUNT_AT_ADDRESS: ThrottlePolicy = { free: 5, baseSeconds: 1, maxSeconds: 900, forgetSeconds: 86_400 };
export const ADDRESS: ThrottlePolicy = { free: 50, baseSeconds: 1, maxSeconds: 900, forgetSeconds: 3_600 };

/** The wait after the `failures`th failure in a row. */
export function delaySeconds(failures: number, policy: ThrottlePolicy): number {
  if (failures <= policy.free) return 0;
  return Math.min(policy.maxSeconds, policy.baseSeconds * 2 ** Math.min(30, failures - policy.free - 1));
}

/** The rows an attempt counts against: IPv6 addresses by /64, like the /v1 failed-authentication count. */
export function throttleKeys(email: string, address: string): { pair: string; address: string } {
  const group = addressGroup(address) ?? address;
  return { pair: `account:${email}\naddress:${group}`, address: `address:${group}` };
}

interface Row {
  key: string;
  failures: number;
  last_failure_ms: string;
  next_attempt_ms: string;
}

export type AttemptResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one attempt against each key (as a failure, until `succeeded` gives it back), or
 * refuses it, counting nothing, while any key is still waiting.
 */
export async function countAttempt(pool: pg.Pool, keys: [string, ThrottlePolicy][], nowMs?: number): Promise<AttemptResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const now =
      nowMs ??
      Number((await client.query<{ now: string }>('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000) AS now')).rows[0]!.now);
    const names = keys.map(([key]) => key);
    // Each row created or locked in one statement, in key order. Not an insert that skips existing
    // rows and then a locking read: a success deleting the account's row in between (`succeeded`,
    // the same operator signing in from the same address at once) left that read without it.
    const { rows } = await client.query<Row>(
      prepared(
        'wgs-sign-in-throttle-rows',
        sql`INSERT INTO sign_in_throttles (key) SELECT unnest(${names}::varchar[]) ORDER BY 1
            ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING *`,
      ),
    );
    const waitMs = Math.max(...rows.map((row) => Number(row.next_attempt_ms) - now));
    if (waitMs > 0) {
      await client.query('COMMIT');
      return { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000) };
    }
    for (const [key, policy] of keys) {
      const row = rows.find((candidate) => candidate.key === key)!;
      const forgotten = now - Number(row.last_failure_ms) >= policy.forgetSeconds * 1000;
      const failures = (forgotten ? 0 : row.failures) + 1;
      const nextAttemptMs = now + delaySeconds(failures, policy) * 1000;
      await client.query(
        prepared(
          'wgs-sign-in-throttle-count',
          sql`UPDATE sign_in_throttles SET failures = ${failures}, last_failure_ms = ${now}, next_attempt_ms = ${nextAttemptMs} WHERE key = ${key}`,
        ),
      );
    }
    await client.query('COMMIT');
    return { allowed: true };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * A successful sign-in: the account's count at that address is forgotten, and the address gets
 * its attempt back (without its wait), so only failures ever slow an address.
 */
export async function succeeded(pool: pg.Pool, pairKey: string, addressKey: string): Promise<void> {
  await pool.query(prepared('wgs-sign-in-throttle-forget', sql`DELETE FROM sign_in_throttles WHERE key = ${pairKey}`));
  await pool.query(
    prepared(
      'wgs-sign-in-throttle-give-back',
      sql`UPDATE sign_in_throttles SET failures = greatest(failures - 1, 0), next_attempt_ms = least(next_attempt_ms, last_failure_ms) WHERE key = ${addressKey}`,
    ),
  );
}

/** Housekeeping: rows whose latest failure is older than the longest forget period. */
export async function deleteForgottenSignInThrottles(pool: pg.Pool, batch = 1000): Promise<number> {
  const oldest = Math.max(ACCOUNT_AT_ADDRESS.forgetSeconds, ADDRESS.forgetSeconds) * 1000;
  const { rowCount } = await pool.query(
    prepared(
      'wgs-sign-in-throttle-housekeeping',
      sql`DELETE FROM sign_in_throttles WHERE key IN (
            SELECT key FROM sign_in_throttles
             WHERE last_failure_ms < floor(extract(epoch FROM clock_timestamp()) * 1000) - ${oldest} AND next_attempt_ms < floor(extract(epoch FROM clock_timestamp()) * 1000)
             LIMIT ${batch} FOR UPDATE SKIP LOCKED)`,
    ),
  );
  return rowCount ?? 0;
}
