import type { AuditLog, Prisma, PrismaClient } from '../../db/generated/client';
import { likeLiteral } from '../like-literal';
import { ApiError } from '../errors';

// The audit log is append-only (a trigger refuses UPDATE and DELETE); this is its only reader.
// Paged by the bigint id, newest first, which is also insertion order.

export interface AuditFilters {
  action?: string;
  actor?: string;
  targetType?: string;
  targetId?: string;
}

export function toAuditView(row: AuditLog) {
  return {
    id: row.id.toString(),
    created_at: row.createdAt.toISOString(),
    actor_type: row.actorType,
    actor_id: row.actorId,
    actor_label: row.actorLabel,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    before: row.before,
    after: row.after,
  };
}

export type AuditView = ReturnType<typeof toAuditView>;

/** An audit cursor is an entry id: a PostgreSQL bigint. */
export const isAuditCursor = (value: string): boolean => /^[0-9]{1,19}$/.test(value) && BigInt(value) <= 9_223_372_036_854_775_807n;

function parseCursor(cursor: string | undefined): bigint | undefined {
  if (!cursor) return undefined;
  if (!isAuditCursor(cursor)) {
    throw ApiError.validation([{ path: 'cursor', code: 'invalid_cursor', message: 'cursor is not one this service returned' }]);
  }
  return BigInt(cursor);
}

export async function listAudit(
  db: PrismaClient,
  input: AuditFilters & { cursor?: string; limit?: number } = {},
): Promise<{ items: AuditView[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  const before = parseCursor(input.cursor);
  const where: Prisma.AuditLogWhereInput = {
    ...(input.action ? { action: input.action } : {}),
    ...(input.actor ? { actorLabel: { contains: likeLiteral(input.actor), mode: 'insensitive' as const } } : {}),
    ...(input.targetType ? { targetType: input.targetType } : {}),
    ...(input.targetId ? { targetId: input.targetId } : {}),
    ...(before !== undefined ? { id: { lt: before } } : {}),
  };
  const rows = await db.auditLog.findMany({ where, orderBy: { id: 'desc' }, take: limit + 1 });
  const items = rows.slice(0, limit).map(toAuditView);
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}

/** Distinct actions seen so far, for the filter's choices. */
export async function listAuditActions(db: PrismaClient): Promise<string[]> {
  // GROUP BY, in SQL (the ORM's `distinct` would read every row and drop duplicates in memory).
  const rows = await db.auditLog.groupBy({ by: ['action'], orderBy: { action: 'asc' } });
  return rows.map((row) => row.action);
}
