import type { Prisma, PrismaClient } from '../../db/generated/client';
import { advisoryXactLock, packageSaleLock } from '../../db/transaction-locks';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { PG_INTEGER_MAX } from '../../contract/pg-integer';
import { codePointLength, UNSAFE_DISPLAY_CHARACTERS, UNSAFE_DISPLAY_RULE } from '../../contract/fields';
import { displayPrefix, generateKeySecret, hashKeySecret } from './key-secret';

export interface IssueKeyInput {
  packageSlug: string;
  /** A specific version; the package's latest when omitted. */
  version?: number;
  label?: string;
  expiresAt?: Date;
  /** Units sold on top of the version's quota. */
  extraUnits?: number;
}

export interface IssuedKey {
  id: string;
  key: string;
  prefix: string;
  package: string;
  package_version: number;
  remaining_units: number;
}

/** Issues a key locked to one package version. The secret is returned here and never again. */
export async function issueKey(db: PrismaClient, actor: Actor, given: IssueKeyInput): Promise<IssuedKey> {
  // Trimmed as the dashboard's form trims it: a label of spaces is no label (too short), on every surface.
  const input = { ...given, label: given.label?.trim() };
  const { pkg, version } = await sellableVersion(db, input);
  checkKeyTerms(input, version.quotaUnits);
  const extra = input.extraUnits ?? 0;

  return db.$transaction(async (tx) => {
    // The package's sale lock, then its archive read again: an archive commits either before it
    // (refused here) or after this key, whose audit entry so never follows the archive's (tRPC audit).
    await advisoryXactLock(tx, packageSaleLock(pkg.slug));
    const current = await tx.package.findUniqueOrThrow({ where: { id: pkg.id }, select: { archivedAt: true } });
    if (current.archivedAt) throw archivedRefusal(pkg.slug);
    return insertKey(tx, actor, {
      packageSlug: pkg.slug,
      version,
      label: input.label ?? null,
      units: version.quotaUnits + extra,
      expiresAt: input.expiresAt ?? null,
    });
  });
}

const archivedRefusal = (slug: string) =>
  ApiError.validation([
    {
      path: 'packageSlug',
      code: 'package_archived',
      message: `Package "${slug}" is archived: it sells no new keys (the keys already issued on it keep working).`,
    },
  ]);

export interface NewKeyRow {
  packageSlug: string;
  version: { id: string; version: number };
  label: string | null;
  units: number;
  expiresAt: Date | null;
  /** Sold through Stripe Checkout: the purchase (one key each: a unique column) and the buyer. */
  sale?: { purchaseId: string; buyerEmail: string | null; stripeCustomerId: string | null };
}

/** Writes a new key and its audit entry inside the caller's transaction; returns the secret once. */
export async function insertKey(tx: Prisma.TransactionClient, actor: Actor, row: NewKeyRow): Promise<IssuedKey> {
  const secret = generateKeySecret();
  const key = await tx.apiKey.create({
    data: {
      hash: hashKeySecret(secret),
      prefix: displayPrefix(secret),
      label: row.label,
      packageVersionId: row.version.id,
      remainingUnits: row.units,
      totalUnits: row.units,
      expiresAt: row.expiresAt,
      purchaseId: row.sale?.purchaseId ?? null,
      buyerEmail: row.sale?.buyerEmail ?? null,
      stripeCustomerId: row.sale?.stripeCustomerId ?? null,
    },
  });
  const issued = {
    id: key.id,
    prefix: key.prefix,
    package: row.packageSlug,
    package_version: row.version.version,
    remaining_units: key.remainingUnits,
  };
  const sale = row.sale ? { purchase_id: row.sale.purchaseId, buyer_email: row.sale.buyerEmail } : {};
  await recordAudit(tx, actor, {
    action: 'key.create',
    targetType: 'api_key',
    targetId: key.id,
    after: { ...issued, label: key.label, expires_at: key.expiresAt?.toISOString() ?? null, ...sale },
  });
  return { ...issued, key: secret };
}

/** The package version the key is sold on: the package must exist and not be archived. */
async function sellableVersion(db: PrismaClient, input: IssueKeyInput) {
  const pkg = await db.package.findUnique({ where: { slug: input.packageSlug } });
  if (!pkg) {
    // A database with no package at all is one nothing was applied to yet (a CLI run before npm
    // start's first start, or on another WGS_DATA_DIR): say how packages get there.
    const none = (await db.package.count()) === 0;
    const hint = none
      ? ' No package has been applied to this database yet: npm start applies packages.example.json to an empty database as it starts, and `packages apply FILE` applies a file.'
      : '';
    throw new ApiError('not_found', { message: `No package "${input.packageSlug}".${hint}` });
  }
  if (pkg.archivedAt) throw archivedRefusal(pkg.slug);
  const wanted = input.version ?? pkg.latestVersion;
  // Versions are PostgreSQL integers: a number outside them names no version (not a database error).
  const version =
    Number.isInteger(wanted) && wanted >= 1 && wanted <= PG_INTEGER_MAX
      ? await db.packageVersion.findUnique({ where: { packageId_version: { packageId: pkg.id, version: wanted } } })
      : null;
  if (!version) throw new ApiError('not_found', { message: `Package "${pkg.slug}" has no version ${input.version}.` });
  return { pkg, version };
}

/** The key's own terms: its label, the units sold on top of the quota, its expiry. */
function checkKeyTerms(input: IssueKeyInput, quotaUnits: number): void {
  const labelLength = input.label === undefined ? undefined : codePointLength(input.label);
  if (labelLength !== undefined && (labelLength < 1 || labelLength > 200)) {
    const code = labelLength < 1 ? 'too_short' : 'too_long';
    throw ApiError.validation([{ path: 'label', code, message: 'label must be 1 to 200 characters' }]);
  }
  if (input.label !== undefined && UNSAFE_DISPLAY_CHARACTERS.test(input.label)) {
    throw ApiError.validation([{ path: 'label', code: 'control_characters', message: `label ${UNSAFE_DISPLAY_RULE}` }]);
  }
  const extra = input.extraUnits ?? 0;
  if (!Number.isInteger(extra) || extra < 0 || quotaUnits + extra > PG_INTEGER_MAX) {
    throw ApiError.validation([
      {
        path: 'extraUnits',
        code: 'invalid',
        message: `extra units must be a whole number from 0 to ${(PG_INTEGER_MAX - quotaUnits).toLocaleString('en-US')}`,
      },
    ]);
  }
  if (input.expiresAt && !(input.expiresAt.getTime() > Date.now())) {
    throw ApiError.validation([{ path: 'expiresAt', code: 'in_the_past', message: 'the expiry must be in the future' }]);
  }
}
