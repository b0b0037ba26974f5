import type { Prisma } from '../../db/generated/client';
import type { Actor } from '../actor';

type AuditWriter = { auditLog: { create: (args: { data: Prisma.AuditLogCreateInput }) => Promise<unknown> } };

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId?: string;
  before?: unknown;
  after?: unknown;
}

const asJson = (value: unknown) => (value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue));

/** Writes one audit row; pass the transaction client so the record commits with the change. */
export async function recordAudit(db: AuditWriter, actor: Actor, entry: AuditEntry): Promise<void> {
  await db.auditLog.create({
    data: {
      actorType: actor.type,
      actorId: actor.id ?? null,
      actorLabel: actor.label,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId ?? null,
      before: asJson(entry.before),
      after: asJson(entry.after),
    },
  });
}
