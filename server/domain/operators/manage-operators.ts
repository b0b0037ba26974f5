import type pg from 'pg';
import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import type { Actor } from '../actor';
import { recordAuditOn } from '../audit/record-audit';
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
  /** The only enabled owner: neither demoted nor disabled (refuseLosingLastOwner), so offered neither. */
  last_owner: boolean;
}

/** Every operator, owners first, then by e-mail. */
export async function listOperators(db: PrismaClient): Promise<OperatorSummary[]> {
  const rows = await db.operator.findMany({ orderBy: [{ email: 'asc' }] });
  const rank: Record<OperatorRole, number> = { owner: 0, admin: 1, viewer: 2 };
  const enabledOwners = rows.filter((row) => row.role === 'owner' && !row.disabledAt).length;
  return rows
    .map((row) => ({
      id: row.id,
      email: row.email,
      name: row.name,
      role: row.role,
      disabled: Boolean(row.disabledAt),
      created_at: row.createdAt.toISOString(),
      last_login_at: row.lastLoginAt?.toISOString() ?? null,
      last_owner: enabledOwners === 1 && row.role === 'owner' && !row.disabledAt,
    }))
    .sort((a, b) => rank[a.role] - rank[b.role]);
}

/** What a change of an operator reads of them. */
export interface OperatorForChange {
  id: string;
  email: string;
  role: OperatorRole;
  disabledAt: Date | null;
}

interface OperatorRow {
  id: string;
  email: string;
  role: OperatorRole;
  disabled_at: Date | null;
}

const forChange = (row: OperatorRow): OperatorForChange => ({ id: row.id, email: row.email, role: row.role, disabledAt: row.disabled_at });

/** The operator with this e-mail (already trimmed and lower-cased), or undefined; on the caller's pg transaction. */
export async function findOperatorByEmail(client: pg.PoolClient, email: string): Promise<OperatorForChange | undefined> {
  const { rows } = await client.query<OperatorRow>(
    prepared('wgs-operator-by-email', sql`SELECT id, email, role::text AS role, disabled_at FROM operators WHERE email = ${email}`),
  );
  return rows[0] && forChange(rows[0]);
}

export async function findOperatorForChange(client: pg.PoolClient, email: string): Promise<OperatorForChange> {
  const normalized = email.trim().toLowerCase();
  const operator = await findOperatorByEmail(client, normalized);
  if (!operator) throw new ApiError('not_found', { message: `No operator with e-mail ${normalized}.` });
  return operator;
}

/**
 * Refuses a change that would leave no enabled owner: nobody could then manage operators or
 * provider keys from the dashboard. Call inside the transaction, before the change.
 */
export async function refuseLosingLastOwner(client: pg.PoolClient, operatorId: string, path: string): Promise<void> {
  const owners = await lockOwners(client);
  // Read again under the lock: the row read before it may have changed since.
  const { rows } = await client.query<OperatorRow>(
    prepared('wgs-operator-by-id', sql`SELECT id, email, role::text AS role, disabled_at FROM operators WHERE id = ${operatorId}::uuid`),
  );
  const operator = rows[0];
  if (!operator) throw new Error(`operator ${operatorId} is gone`);
  if (operator.role === 'owner' && !operator.disabled_at && owners <= 1) {
    throw ApiError.validation([{ path, code: 'last_owner', message: 'this is the last owner: make another operator an owner first' }]);
  }
}

/** Gives an operator another role (audited); the last enabled owner keeps theirs. */
export async function setOperatorRole(
  db: SqlDb,
  actor: Actor,
  input: { email: string; role: OperatorRole },
): Promise<{ id: string; email: string; role: OperatorRole }> {
  return inPgTransaction(db.pool, async (client) => {
    const operator = await findOperatorForChange(client, input.email);
    if (operator.role !== input.role) {
      if (input.role !== 'owner') await refuseLosingLastOwner(client, operator.id, 'role');
      await client.query(
        prepared('wgs-operator-set-role', sql`UPDATE operators SET role = ${input.role}::"OperatorRole" WHERE id = ${operator.id}::uuid`),
      );
      await recordAuditOn(client, actor, {
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
