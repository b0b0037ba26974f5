import type { ApiKey, Package, PackageVersion } from '../../db/generated/client';
import { shownKeyStatus } from '../key-status';

export type KeyWithPackage = ApiKey & { packageVersion: PackageVersion & { package: Package } };

export const KEY_INCLUDE = { packageVersion: { include: { package: true } } } as const;

/** What the view reads of a key: a KeyWithPackage, or the same fields read by a named statement. */
export type KeyViewSource = Pick<
  ApiKey,
  | 'id'
  | 'prefix'
  | 'label'
  | 'status'
  | 'remainingUnits'
  | 'totalUnits'
  | 'inFlight'
  | 'storedBytes'
  | 'createdAt'
  | 'revokedAt'
  | 'expiresAt'
  | 'lastUsedAt'
> & { packageVersion: Pick<PackageVersion, 'version'> & { package: Pick<Package, 'slug'> } };

/** The operator-facing shape of a key (CLI --json and dashboard); never contains the secret. */
export function toKeyView(key: KeyViewSource) {
  return {
    id: key.id,
    prefix: key.prefix,
    label: key.label,
    status: shownKeyStatus(key),
    package: key.packageVersion.package.slug,
    package_version: key.packageVersion.version,
    remaining_units: key.remainingUnits,
    total_units: key.totalUnits,
    in_flight: key.inFlight,
    /** Bytes the key holds in storage now (uploads and outputs, until their retention deletes them). */
    stored_bytes: Number(key.storedBytes),
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
  };
}

export type KeyView = ReturnType<typeof toKeyView>;
