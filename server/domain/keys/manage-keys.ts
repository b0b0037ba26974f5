import type { Prisma, PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { likeLiteral } from '../like-literal';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import { keysetPageQuery, toPage } from '../reports/cursor';
import { isUuid } from '../uuid';
import { forgetKeyHash } from './authenticate-key';
import { announceKeyHashChange } from './key-cache-invalidation';
import { KEY_INCLUDE, toKeyView, type KeyView } from './key-view';

/** remaining_units is a PostgreSQL integer. */
const MAX_REMAINING_UNITS = PG_INTEGER_MAX;

/** With `lock`, the key's row stays locked until the transaction ends: a revoke and a top-up cannot interleave. */
async function findKey(db: Prisma.TransactionClient, id: string, lock = false) {
  if (lock && isUuid(id)) await db.$executeRaw`SELECT 1 FROM api_keys WHERE id = ${id}::uuid FOR UPDATE`;
  const key = isUuid(id) ? await db.apiKey.findUnique({ where: { id }, include: KEY_INCLUDE }) : null;
  if (!key) throw new ApiError('not_found', { message: `No API key with id "${id}".` });
  return key;
}

export async function getKey(db: PrismaClient, id: string): Promise<KeyView> {
  return toKeyView(await findKey(db, id));
}

export interface ListKeysInput {
  search?: string;
  status?: 'active' | 'revoked' | 'suspended';
  packageSlug?: string;
  cursor?: string;
  limit?: number;
}

/**
 * Newest first, keyset-paged by (created_at, id) both ways (the reports' opaque cursors), so it
 * stays fast with many keys.
 */
export async function listKeys(
  db: PrismaClient,
  input: ListKeysInput = {},
): Promise<{ items: KeyView[]; nextCursor: string | null; prevCursor: string | null }> {
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 1000);
  const where: Prisma.ApiKeyWhereInput = {
    ...(input.status ? { status: input.status } : {}),
    ...(input.packageSlug ? { packageVersion: { package: { slug: input.packageSlug } } } : {}),
    ...(input.search
      ? {
          OR: [
            { label: { contains: likeLiteral(input.search), mode: 'insensitive' as const } },
            { prefix: { startsWith: likeLiteral(input.search) } },
            ...(isUuid(input.search) ? [{ id: input.search }] : []),
          ],
        }
      : {}),
  };
  const rows = await db.apiKey.findMany(keysetPageQuery(where, input.cursor, limit, KEY_INCLUDE));
  return toPage(rows, limit, toKeyView, input.cursor);
}

/**
 * Revokes at once: every listening instance forgets the key's cached lookup when the revocation
 * commits (LISTEN/NOTIFY, as a rotation does), one that does not listen within the cache's lifetime.
 */
export async function revokeKey(db: PrismaClient, actor: Actor, id: string): Promise<KeyView> {
  const { view, hash } = await db.$transaction(async (tx) => {
    const before = await findKey(tx, id, true);
    if (before.status === 'revoked') return { view: toKeyView(before), hash: before.hash };
    const after = await tx.apiKey.update({
      where: { id: before.id },
      data: { status: 'revoked', revokedAt: new Date() },
      include: KEY_INCLUDE,
    });
    await announceKeyHashChange(tx, before.hash);
    await recordAudit(tx, actor, {
      action: 'key.revoke',
      targetType: 'api_key',
      targetId: id,
      before: { status: before.status },
      after: { status: 'revoked' },
    });
    return { view: toKeyView(after), hash: before.hash };
  });
  forgetKeyHash(hash); // this process too, when it does not listen (the CLI, tests)
  return view;
}

/**
 * Adds units in one atomic increment, so a top-up never races with requests spending units.
 * A revoked or expired key can never spend them again, so it is refused rather than sold units.
 */
export async function topUpKey(db: PrismaClient, actor: Actor, id: string, units: number): Promise<KeyView> {
  if (!Number.isInteger(units) || units < 1 || units > 1_000_000_000) {
    throw ApiError.validation([{ path: 'units', code: 'invalid', message: 'units must be a whole number from 1 to 1,000,000,000' }]);
  }
  return db.$transaction(async (tx) => {
    const before = await findKey(tx, id, true);
    const inactive = before.status === 'revoked' ? 'revoked' : before.expiresAt && before.expiresAt <= new Date() ? 'expired' : null;
    if (inactive) {
      throw ApiError.validation([
        { path: 'id', code: `key_${inactive}`, message: `API key ${id} is ${inactive}; an inactive key cannot be topped up.` },
      ]);
    }
    // The row is locked: nothing changes the balance between this check and the update.
    if (before.remainingUnits + units > MAX_REMAINING_UNITS) {
      throw ApiError.validation([
        {
          path: 'units',
          code: 'balance_too_large',
          message: `adding ${units} units would take the key past the largest balance, ${MAX_REMAINING_UNITS.toLocaleString('en-US')} units`,
        },
      ]);
    }
    const after = await tx.apiKey.update({
      where: { id: before.id },
      data: { remainingUnits: { increment: units }, totalUnits: { increment: Math.min(units, MAX_REMAINING_UNITS - before.totalUnits) } },
      include: KEY_INCLUDE,
    });
    await recordAudit(tx, actor, {
      action: 'key.topup',
      targetType: 'api_key',
      targetId: id,
      before: { remaining_units: before.remainingUnits },
      after: { remaining_units: after.remainingUnits, added: units },
    });
    return toKeyView(after);
  });
}

/** Renames a key (the label operators search by); audited with the old and new label. */
export async function editKeyLabel(db: PrismaClient, actor: Actor, id: string, label: string | null): Promise<KeyView> {
  const next = label?.trim() || null;
  if (next !== null && next.length > 200) {
    throw ApiError.validation([{ path: 'label', code: 'too_long', message: 'label must be at most 200 characters' }]);
  }
  return db.$transaction(async (tx) => {
    const before = await findKey(tx, id, true);
    if (before.label === next) return toKeyView(before);
    const after = await tx.apiKey.update({ where: { id: before.id }, data: { label: next }, include: KEY_INCLUDE });
    await recordAudit(tx, actor, {
      action: 'key.label',
      targetType: 'api_key',
      targetId: before.id,
      before: { label: before.label },
      after: { label: next },
    });
    return toKeyView(after);
  });
}
