import type { Prisma, PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { lockOwners } from './owner-lock';
import type { OperatorRole } from '../../contract/dashboard/roles';

export interface OperatorSummary {
  id: string;
  email: string;
  name: string | null;
  role: OperatorRole;
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

/** Every operator, owners first, then by e-mail. */
export async function listOperators(db: PrismaClient): Promise<OperatorSummary[]> {
  const rows = await db.operator.findMany({ orderBy: [{ email: 'asc' }] });
  const rank: Record<OperatorRole, number> = { owner: 0, admin: 1, viewer: 2 };
  return rows
    .map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role,
      disabled: Boolean(row.disabledAt),
      created_at: row.createdAt.toISOString(),
      last_login_at: row.lastLoginAt?.toISOString() ?? null,
    }))
    .sort((a, b) => rank[a.role] - rank[b.role]);
}

export async function findOperatorForChange(tx: Prisma.TransactionClient, email: string) {
  const normalized = email.trim().toLowerCase();
  const operator = await tx.operator.findUnique({ where: { email: normalized } });
  if (!operator) throw new ApiError('not_found', { message: `No operator with e-mail ${normalized}.` });
  return operator;
}

/**
 * Refuses a change that would leave no enabled owner: nobody could then manage operators or
 * provider keys from the dashboard. Call inside the transaction, before the change.
 */
export async function refuseLosingLastOwner(tx: Prisma.TransactionClient, operatorId: string, path: string): Promise<void> {
  const owners = await lockOwners(tx);
  // Read again under the lock: the row read before it may have changed since.
  const operator = await tx.operator.findUniqueOrThrow({ where: { id: operatorId } });
  if (operator.role === 'owner' && !operator.disabledAt && owners <= 1) {
    throw ApiError.validation([{ path, code: 'last_owner', message: 'this is the last owner: make another operator an owner first' }]);
  }
}

/** Gives an operator another role (audited); the last enabled owner keeps theirs. */
export async function setOperatorRole(
  db: PrismaClient,
  actor: Actor,
  input: { email: string; role: OperatorRole },
): Promise<{ id: string; email: string; role: OperatorRole }> {
  return db.$transaction(async (tx) => {
    const operator = await findOperatorForChange(tx, input.email);
    if (operator.role !== input.role) {
      if (input.role !== 'owner') await refuseLosingLastOwner(tx, operator.id, 'role');
      await tx.operator.update({ where: { id: operator.id }, data: { role: input.role } });
      await recordAudit(tx, actor, {
        action: 'operator.role',
        targetType: 'operator',
        targetId: operator.id,
        before: { role: operator.role },
        after: { email: operator.email, role: input.role },
      });
    }
    return { id: operator.id, email: operator.email, role: input.role };
  });
}
