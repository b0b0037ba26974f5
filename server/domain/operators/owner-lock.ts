import type { Prisma } from '../../db/generated/client';

// Changes that could leave no owner (a demotion, a disabling) and the creation of the first
// operator take this transaction lock, so two at once cannot both see "another owner remains".
const OWNERS_LOCK_ID = 7_310_424_015;

export async function lockOwners(tx: Prisma.TransactionClient): Promise<number> {
  await tx.$queryRaw`SELECT 1 AS locked FROM pg_advisory_xact_lock(${OWNERS_LOCK_ID}::bigint)`;
  return tx.operator.count({ where: { role: 'owner', disabledAt: null } });
}
