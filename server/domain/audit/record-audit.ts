import type pg from 'pg';
import sql from 'sql-template-tag';
import type { Prisma } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
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

/**
 * The same row, written on the connection of a pg transaction (a change that also takes a lock the
 * ORM cannot say runs whole in one: server/db/pg-transaction.ts), so it commits with the change.
 */
export async function recordAuditOn(client: pg.PoolClient, actor: Actor, entry: AuditEntry): Promise<void> {
  const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
  await client.query(
    prepared(
      'wgs-audit-record',
      sql`INSERT INTO audit_log (actor_type, actor_id, actor_label, action, target_type, target_id, before, after, created_at)
          VALUES (${actor.type}, ${actor.id ?? null}, ${actor.label}, ${entry.action}, ${entry.targetType}, ${entry.targetId ?? null},
                  ${json(entry.before)}::jsonb, ${json(entry.after)}::jsonb, ${new Date()})`,
    ),
  );
}
