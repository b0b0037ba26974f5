import type { PrismaClient } from '../../db/generated/client';
import { advisoryXactLock, packageSaleLock } from '../../db/transaction-locks';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';

/**
 * Archives a package (it sells no new keys; the keys already issued keep working, on the terms
 * of their version) or brings it back. Audited; archiving an archived package changes nothing.
 */
export async function setPackageArchived(db: PrismaClient, actor: Actor, slug: string, archived: boolean) {
  return db.$transaction(async (tx) => {
    await advisoryXactLock(tx, packageSaleLock(slug)); // a key being issued on it is written first (issue-key.ts)
    const pkg = await tx.package.findUnique({ where: { slug } });
    if (!pkg) throw new ApiError('not_found', { message: `No package "${slug}".` });
    if (Boolean(pkg.archivedAt) === archived) return { slug, archived_at: pkg.archivedAt?.toISOString() ?? null };
    const after = await tx.package.update({ where: { id: pkg.id }, data: { archivedAt: archived ? new Date() : null } });
    await recordAudit(tx, actor, {
      action: archived ? 'package.archive' : 'package.unarchive',
      targetType: 'package',
      targetId: slug,
      before: { archived_at: pkg.archivedAt?.toISOString() ?? null },
      after: { archived_at: after.archivedAt?.toISOString() ?? null },
    });
    return { slug, archived_at: after.archivedAt?.toISOString() ?? null };
  });
}
