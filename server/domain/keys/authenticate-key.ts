import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';
import { ApiError } from '../errors';
import type { PackageOperations } from '../../contract/package-schema';
import { hashKeySecret, KEY_PATTERN } from './key-secret';
import { isKeyActive, type KeyStatus } from '../key-status';

// The key lookup of every /v1 request: one indexed query by hash, cached per process for
// KEY_CACHE_TTL_MS (< 1 s) so a revocation reaches every instance within a second.

export interface AuthenticatedKey {
  id: string;
  packageSlug: string;
  packageVersionId: string;
  packageVersion: number;
  operations: PackageOperations;
  requestsPerMinute: number;
  concurrency: number;
  maxUploadBytes: number;
  /** The package's max_provider_cost_per_day (numeric text); null: none. */
  maxProviderCostPerDay: string | null;
  /** What the key may hold in storage at once: the version's max_stored_bytes, else 10 x max_upload_bytes. */
  maxStoredBytes: number;
  /** The OpenAI-compatible surface requires an Idempotency-Key on POST (the package's openai_compatible setting). */
  openaiRequiresIdempotencyKey: boolean;
}

interface KeyRow {
  id: string;
  /** Only active keys pass: a revoked key, or one suspended by a disputed payment, is refused alike. */
  status: KeyStatus;
  expires_at: Date | null;
  version_id: string;
  version: number;
  slug: string;
  operations: PackageOperations;
  requests_per_minute: number;
  concurrency: number;
  max_upload_bytes: number;
  max_provider_cost_per_day: string | null;
  max_stored_bytes: string;
  openai_require_idempotency_key: boolean;
}

const MAX_CACHED = 10_000;
const cache = new Map<string, { row: KeyRow | null; until: number }>();
// Lookups in flight, so the requests that find an expired entry at the same moment share one
// SELECT instead of each sending its own (50 concurrent requests of a key: 50 SELECTs -> 1).
const pending = new Map<string, Promise<KeyRow | null>>();
// Counts evictions: a lookup that began before one may have read the row as it was, so it is not cached.
let evictions = 0;

async function queryKey(db: SqlDb, hash: string, ttl: number, now: number): Promise<KeyRow | null> {
  const evictionsBefore = evictions;
  const { rows } = await db.pool.query<KeyRow>(
    prepared(
      'wgs-authenticate-key',
      sql`SELECT k.id, k.status, k.expires_at, v.id AS version_id, v.version, p.slug, v.operations,
                  v.requests_per_minute, v.concurrency, v.max_upload_bytes, v.max_provider_cost_per_day,
                  coalesce(v.max_stored_bytes, 10 * v.max_upload_bytes::bigint) AS max_stored_bytes,
                  v.openai_require_idempotency_key
             FROM api_keys k
             JOIN package_versions v ON v.id = k.package_version_id
             JOIN packages p ON p.id = v.package_id
            WHERE k.hash = ${hash}`,
    ),
  );
  const row = rows[0] ?? null;
  if (ttl > 0 && evictions === evictionsBefore) {
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(hash, { row, until: now + ttl });
  }
  return row;
}

async function loadKey(db: SqlDb, hash: string): Promise<KeyRow | null> {
  const ttl = getConfig().KEY_CACHE_TTL_MS;
  const now = Date.now();
  const hit = cache.get(hash);
  if (hit && hit.until > now) return hit.row;
  if (ttl <= 0) return queryKey(db, hash, ttl, now); // no cache: every request reads the row itself
  let lookup = pending.get(hash);
  if (!lookup) {
    const started = queryKey(db, hash, ttl, now).finally(() => {
      if (pending.get(hash) === started) pending.delete(hash);
    });
    pending.set(hash, started);
    lookup = started;
  }
  return lookup;
}

/**
 * A Bearer token was sent and is no active key: RFC 6750 §3.1's `error="invalid_token"`. A request
 * with no Bearer token at all gets the bare challenge (§3.1: no error code then).
 */
const INVALID_TOKEN = () =>
  new ApiError('invalid_api_key', { headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' } });

/** Parses `Authorization: Bearer <key>` and returns the active key, or throws 401. */
export async function authenticateKey(db: SqlDb, authorization: string | null): Promise<AuthenticatedKey> {
  const match = authorization?.match(/^Bearer +(\S+) *$/i);
  const secret = match?.[1];
  if (!secret) throw new ApiError('invalid_api_key');
  if (!KEY_PATTERN.test(secret)) throw INVALID_TOKEN();
  const row = await loadKey(db, hashKeySecret(secret));
  if (!row || !isKeyActive({ status: row.status, expiresAt: row.expires_at })) throw INVALID_TOKEN();
  return {
    id: row.id,
    packageSlug: row.slug,
    packageVersionId: row.version_id,
    packageVersion: row.version,
    operations: row.operations,
    requestsPerMinute: row.requests_per_minute,
    concurrency: row.concurrency,
    maxUploadBytes: row.max_upload_bytes,
    maxProviderCostPerDay: row.max_provider_cost_per_day,
    maxStoredBytes: Number(row.max_stored_bytes),
    openaiRequiresIdempotencyKey: row.openai_require_idempotency_key,
  };
}

export function clearKeyCache(): void {
  cache.clear();
  pending.clear();
  evictions++;
}

/** Forgets one key hash's lookup (a rotated secret), here; key-cache-invalidation.ts tells the other instances. */
export function forgetKeyHash(hash: string): void {
  cache.delete(hash);
  pending.delete(hash);
  evictions++;
}
