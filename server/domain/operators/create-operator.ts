import { randomUUID } from 'node:crypto';
import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import type { Actor } from '../actor';
import { recordAuditOn } from '../audit/record-audit';
import { ApiError, type ValidationIssue } from '../errors';
import { findOperatorByEmail } from './manage-operators';
import { lockOwners } from './owner-lock';
import { isOperatorRole, OPERATOR_ROLES, type OperatorRole } from '../../contract/dashboard/roles';
import { codePointLength } from '../../contract/fields';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates an operator. The first operator of all is an owner (someone must be able to manage the
 * others); after that the role is the one given, viewer (read only) when none is.
 */
export async function createOperator(
  db: SqlDb,
  actor: Actor,
  input: { email: string; password: string; name?: string; role?: string },
): Promise<{ id: string; email: string; role: OperatorRole }> {
  const email = input.email.trim().toLowerCase();
  const issues: ValidationIssue[] = [
    ...(EMAIL.test(email) ? [] : [{ path: 'email', code: 'invalid_email', message: 'email must be an e-mail address' }]),
    ...(codePointLength(input.password) >= 12 && codePointLength(input.password) <= 200
      ? []
      : [{ path: 'password', code: 'weak_password', message: 'password must be 12 to 200 characters' }]),
    ...(input.password.length > 0 && input.password.trim() === ''
      ? [{ path: 'password', code: 'weak_password', message: 'password must not be blanks only' }]
      : []),
    ...(input.role === undefined || isOperatorRole(input.role)
      ? []
      : [{ path: 'role', code: 'invalid_role', message: `role must be one of ${OPERATOR_ROLES.join(', ')}` }]),
  ];
  if (issues.length > 0) throw ApiError.validation(issues);
  // argon2id with the library's defaults; the native package is loaded by the first operator created.
  const { hash } = await import('@node-rs/argon2');
  const passwordHash = await hash(input.password);
  return inPgTransaction(db.pool, async (client) => {
    if (await findOperatorByEmail(client, email)) {
      throw ApiError.validation([{ path: 'email', code: 'already_exists', message: `an operator with e-mail ${email} exists` }]);
    }
    await lockOwners(client);
    const { rows } = await client.query<{ operators: number }>(
      prepared('wgs-operators-count', sql`SELECT COUNT(*)::int AS operators FROM operators`),
    );
    const first = rows[0]?.operators === 0;
    const asked = input.role as OperatorRole | undefined;
    if (first && asked && asked !== 'owner') {
      throw ApiError.validation([{ path: 'role', code: 'first_operator_owner', message: 'the first operator must be an owner' }]);
    }
    const role: OperatorRole = first ? 'owner' : (asked ?? 'viewer');
    const id = randomUUID();
    await client.query(
      prepared(
        'wgs-operator-insert',
        sql`INSERT INTO operators (id, email, name, password_hash, role, created_at)
            VALUES (${id}::uuid, ${email}, ${input.name ?? null}, ${passwordHash}, ${role}::"OperatorRole", ${new Date()})`,
      ),
    );
    await recordAuditOn(client, actor, { action: 'operator.create', targetType: 'operator', targetId: id, after: { email, role } });
    return { id, email, role };
  });
}
