import type pg from 'pg';
import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import type { KeyStatus, Prisma, PrismaClient } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import type { Actor } from '../actor';
import { recordAuditOn } from '../audit/record-audit';
import { ApiError } from '../errors';
import { keyNotFound } from '../key-not-found';
import { likeLiteral } from '../like-literal';
import { keysetPageQuery, toPage } from '../pagination';
import { isUuid } from '../uuid';
import { forgetKeyHash } from './authenticate-key';
import { announceKeyHashChangeOn } from './key-cache-invalidation';
import type { ShownKeyStatus } from '../../contract/dashboard/key-status';
import { KEY_INCLUDE, toKeyView, type KeyView } from './key-view';
import { codePointLength } from '../../contract/fields';

export async function getKey(db: PrismaClient, id: string): Promise<KeyView> {
  const key = isUuid(id) ? await db.apiKey.findUnique({ where: { id }, include: KEY_INCLUDE }) : null;
  if (!key) throw keyNotFound(id);
  return toKeyView(key);
}

interface LockedKeyRow {
  id: string;
  hash: string;
  prefix: string;
  label: string | null;
  status: KeyStatus;
  slug: string;
  version: number;
  remaining_units: number;
  total_units: number;
  in_flight: number;
  /** A PostgreSQL bigint: a decimal string from pg. */
  stored_bytes: string;
  created_at: Date;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

/**
 * The key with its view, its row locked until the pg transaction ends: a revoke and a top-up
 * (billing/key-balance.ts) cannot interleave. A row lock the ORM cannot say, so a change that takes
 * it runs whole on that transaction's connection.
 */
async function lockKey(
  client: pg.PoolClient,
  id: string,
): Promise<{ hash: string; label: string | null; status: KeyStatus; view: KeyView }> {
  if (!isUuid(id)) throw keyNotFound(id);
  const { rows } = await client.query<LockedKeyRow>(
    prepared(
      'wgs-key-lock-for-change',
      sql`SELECT k.id, k.hash, k.prefix, k.label, k.status::text AS status, p.slug, v.version, k.remaining_units, k.total_units,
                 k.in_flight, k.stored_bytes, k.created_at, k.revoked_at, k.expires_at, k.last_used_at
            FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id
           WHERE k.id = ${id}::uuid
             FOR UPDATE OF k`,
    ),
  );
  const row = rows[0];
  if (!row) throw keyNotFound(id);
  const view = toKeyView({
    id: row.id,
    prefix: row.prefix,
    label: row.label,
    status: row.status,
    remainingUnits: row.remaining_units,
    totalUnits: row.total_units,
    inFlight: row.in_flight,
    storedBytes: BigInt(row.stored_bytes),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    packageVersion: { version: row.version, package: { slug: row.slug } },
  });
  return { hash: row.hash, label: row.label, status: row.status, view };
}

export interface ListKeysInput {
  search?: string;
  status?: ShownKeyStatus;
  packageSlug?: string;
  cursor?: string;
  limit?: number;
}

/** The keys shown with `status` (shownKeyStatus): an expired key is stored `active`, its expiry past. */
export function statusWhere(status: ShownKeyStatus, now: Date): Prisma.ApiKeyWhereInput {
  if (status === 'expired') return { status: 'active', expiresAt: { lte: now } };
  // In an AND: the search's OR sits beside it.
  if (status === 'active') return { status: 'active', AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }] };
  return { status };
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
    ...(input.status ? statusWhere(input.status, new Date()) : {}),
    ...(input.packageSlug ? { packageVersion: { package: { slug: input.packageSlug } } } : {}),
    ...(input.search
      ? {
          OR: [
            { label: { contains: likeLiteral(input.search), mode: 'insensitive' as const } },
            { buyerEmail: { contains: likeLiteral(input.search), mode: 'insensitive' as const } },
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
export async function revokeKey(db: SqlDb, actor: Actor, id: string): Promise<KeyView> {
  const { view, hash } = await inPgTransaction(db.pool, async (client) => {
    const before = await lockKey(client, id);
    if (before.status === 'revoked') return { view: before.view, hash: before.hash };
    await client.query(
      prepared('wgs-key-revoke', sql`UPDATE api_keys SET status = 'revoked', revoked_at = ${new Date()} WHERE id = ${id}::uuid`),
    );
    const after = await lockKey(client, id);
    await announceKeyHashChangeOn(client, before.hash);
    await recordAuditOn(client, actor, {
      action: 'key.revoke',
      targetType: 'api_key',
      targetId: id,
      before: { status: before.view.status }, // as shown: `expired` when its day has passed
      after: { status: 'revoked' },
    });
    return { view: after.view, hash: before.hash };
  });
  forgetKeyHash(hash); // this process too, when it does not listen (the CLI, tests)
  return view;
}

/** Renames a key (the label operators search by); audited with the old and new label. */
export async function editKeyLabel(db: SqlDb, actor: Actor, id: string, label: string | null): Promise<KeyView> {
  const next = label?.trim() || null;
  if (next !== null && codePointLength(next) > 200) {
    throw ApiError.validation([{ path: 'label', code: 'too_long', message: 'label must be at most 200 characters' }]);
  }
  return inPgTransaction(db.pool, async (client) => {
    const before = await lockKey(client, id);
    if (before.label === next) return before.view;
    await client.query(prepared('wgs-key-label', sql`UPDATE api_keys SET label = ${next} WHERE id = ${id}::uuid`));
    const after = await lockKey(client, id);
    await recordAuditOn(client, actor, {
      action: 'key.label',
      targetType: 'api_key',
      targetId: before.view.id,
      before: { label: before.label },
      after: { label: next },
    });
    return after.view;
  });
}
