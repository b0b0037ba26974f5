import sql from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import type { KeyDescription } from '../../contract/key';
import type { SqlDb } from '../../db/client';
import type { PackageOperations } from '../../contract/package-schema';

// GET /v1/key: what a key may do and has left, read fresh (remaining units move with every call).

interface DescribedRow {
  prefix: string;
  remaining_units: number;
  expires_at: Date | null;
  slug: string;
  name: string;
  version: number;
  operations: PackageOperations;
  requests_per_minute: number;
  concurrency: number;
  max_upload_bytes: number;
  max_stored_bytes: string; // bigint
}

/** The operations' settings without what is private: the engine (and so the provider) serving each. */
function publicSettings(operations: PackageOperations): KeyDescription['operations'] {
  const described: KeyDescription['operations'] = {};
  for (const [operation, settings] of Object.entries(operations)) {
    if (!settings) continue;
    const { engine: _engine, ...rest } = settings as { engine: unknown; units: number };
    described[operation as keyof PackageOperations] = rest;
  }
  return described;
}

export async function describeKey(db: SqlDb, apiKeyId: string): Promise<KeyDescription> {
  const { rows } = await db.pool.query<DescribedRow>(
    prepared(
      'wgs-describe-key',
      sql`SELECT k.prefix, k.remaining_units, k.expires_at, p.slug, v.name, v.version, v.operations,
                  v.requests_per_minute, v.concurrency, v.max_upload_bytes,
                  coalesce(v.max_stored_bytes, 10 * v.max_upload_bytes::bigint) AS max_stored_bytes
             FROM api_keys k
             JOIN package_versions v ON v.id = k.package_version_id
             JOIN packages p ON p.id = v.package_id
            WHERE k.id = ${apiKeyId}`,
    ),
  );
  const row = rows[0];
  if (!row) throw new Error(`api key ${apiKeyId} not found`);
  return {
    object: 'key',
    prefix: row.prefix,
    package: { slug: row.slug, name: row.name, version: row.version },
    operations: publicSettings(row.operations),
    limits: {
      requests_per_minute: row.requests_per_minute,
      concurrency: row.concurrency,
      max_upload_bytes: row.max_upload_bytes,
      max_stored_bytes: Number(row.max_stored_bytes),
    },
    remaining_units: row.remaining_units,
    expires_at: row.expires_at?.toISOString() ?? null,
  };
}
