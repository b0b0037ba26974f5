import { ApiError } from '../errors';
import { isUuid } from '../uuid';

// Keyset paging for the dashboard's read models: a cursor is the (created_at, id) of the last
// row of a page, opaque to the caller, so a page costs one index range scan however deep it is.

export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.createdAt.toISOString()}|${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): KeysetPosition | undefined {
  if (!cursor) return undefined;
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  // Forged positions are refused here, not by the database (a 500): ids are uuids, times within 1970-9999.
  const year = createdAt.getUTCFullYear();
  if (!id || !isUuid(id) || Number.isNaN(createdAt.getTime()) || year < 1970 || year > 9999) {
    throw ApiError.validation([{ path: 'cursor', code: 'invalid_cursor', message: 'cursor is not one this service returned' }]);
  }
  return { createdAt, id };
}

/** The Prisma condition "strictly after this position" in newest-first order. */
export function afterPosition(position: KeysetPosition | undefined) {
  if (!position) return {};
  return {
    OR: [{ createdAt: { lt: position.createdAt } }, { createdAt: position.createdAt, id: { lt: position.id } }],
  };
}

/** What every report row carries of its API key. */
export const WITH_KEY = { apiKey: { select: { prefix: true, label: true } } } as const;

/**
 * The shared part of a report's findMany: rows matching `where` strictly after the cursor,
 * newest first, with their key, and one probe row more than the page (see toPage).
 */
export function keysetPageQuery<Where extends object>(where: Where, cursor: string | undefined, limit: number) {
  return {
    where: { AND: [where, afterPosition(decodeCursor(cursor))] },
    include: WITH_KEY,
    orderBy: [{ createdAt: 'desc' as const }, { id: 'desc' as const }],
    take: limit + 1,
  };
}

export function clampLimit(limit: number | undefined, fallback = 50): number {
  return Math.min(Math.max(limit ?? fallback, 1), 200);
}

/** Cuts the extra probe row and returns the cursor of the next page, if there is one. */
export function toPage<Row extends KeysetPosition, View>(rows: Row[], limit: number, view: (row: Row) => View) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(view), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

export const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);
