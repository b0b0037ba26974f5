import { hash } from '@node-rs/argon2';
import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createOperator(
  db: PrismaClient,
  actor: Actor,
  input: { email: string; password: string; name?: string },
): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  const issues = [
    ...(EMAIL.test(email) ? [] : [{ path: 'email', code: 'invalid_email', message: 'email must be an e-mail address' }]),
    ...(input.password.length >= 12 && input.password.length <= 200
      ? []
      : [{ path: 'password', code: 'weak_password', message: 'password must be 12 to 200 characters' }]),
  ];
  if (issues.length > 0) throw ApiError.validation(issues);
  if (await db.operator.findUnique({ where: { email } })) {
    throw ApiError.validation([{ path: 'email', code: 'already_exists', message: `an operator with e-mail ${email} exists` }]);
  }
  const passwordHash = await hash(input.password); // argon2id with the library's defaults
  const operator = await db.operator.create({ data: { email, name: input.name ?? null, passwordHash } });
  await recordAudit(db, actor, { action: 'operator.create', targetType: 'operator', targetId: operator.id, after: { email } });
  return { id: operator.id, email: operator.email };
}
