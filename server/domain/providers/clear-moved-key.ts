import type { Prisma } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';

// A stored key was given for one server: a provider whose `type`, `base_url` (or azure's
// `resource_name`) changes would
// otherwise send it to the new host. The key is deleted in the same transaction as the edit and
// the operator stores it again (`providers set-key`, the dashboard); the deletion is audited.

export interface ProviderTarget {
  type: string;
  baseUrl: string | null;
  /** azure's resource_name names its host when base_url is absent. */
  options?: unknown;
}

const resourceOf = (target: ProviderTarget) => (target.options as { resource_name?: string } | null | undefined)?.resource_name ?? null;

/** Deletes the provider's stored key when its type or base_url changed; true when one was deleted. */
export async function clearKeyOfMovedProvider(
  tx: Prisma.TransactionClient,
  actor: Actor,
  name: string,
  before: ProviderTarget,
  after: ProviderTarget,
): Promise<boolean> {
  if (before.type === after.type && before.baseUrl === after.baseUrl && resourceOf(before) === resourceOf(after)) return false;
  const removed = await tx.providerKey.deleteMany({ where: { provider: name } });
  if (removed.count === 0) return false;
  const changed = before.type !== after.type ? 'type' : before.baseUrl !== after.baseUrl ? 'base_url' : 'resource_name';
  await recordAudit(tx, actor, {
    action: 'provider.key_cleared',
    targetType: 'provider',
    targetId: name,
    before: { key: 'stored', type: before.type, base_url: before.baseUrl },
    after: { key: null, reason: `${changed} changed`, type: after.type, base_url: after.baseUrl },
  });
  return true;
}
