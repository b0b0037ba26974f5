import type { Prisma } from './generated/client';

// The two statements a Prisma interactive transaction needs that its ORM cannot say: an advisory
// lock and a NOTIFY, each of which must commit (or roll back) with the ORM's writes around it.
// They are the only Prisma raw SQL in server/ (tests/unit/billing-statements.test.ts); anything
// else the ORM cannot say is a named statement on the pg pool (ARCHITECTURE.md, "SQL").

/** The lock of the catalogue: a `packages apply` and a provider saved from the dashboard never interleave. */
export const CATALOGUE_LOCK = 72707371;

/** The lock of one package's sale: a key issued on it and its archive never interleave. */
export const packageSaleLock = (slug: string) => `wgs:package-sale:${slug}`;

/** Serialises the transactions that take the same `key` until each ends (a number as is, a name hashed). */
export async function advisoryXactLock(tx: Prisma.TransactionClient, key: number | string): Promise<void> {
  if (typeof key === 'number') await tx.$executeRaw`SELECT pg_advisory_xact_lock(${key})`;
  else await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`;
}

/** NOTIFY `channel` with `payload`, delivered to the listeners when the transaction commits. */
export async function notifyOnCommit(tx: Prisma.TransactionClient, channel: string, payload: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
}
