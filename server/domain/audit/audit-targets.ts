import type { PrismaClient } from '../../db/generated/client';
import { isUuid } from '../uuid';
import type { AuditView } from './list-audit';

/** What an audit entry's target is, in the words operators use (a key's prefix, a package's slug). */
export type AuditTarget =
  | { type: 'api_key'; id: string; prefix: string | null; label: string | null }
  | { type: 'package'; id: string; slug: string; version: number | null; previous_version: number | null }
  | { type: 'operator'; id: string; email: string | null }
  | { type: string; id: string | null };

const versionOf = (value: unknown): number | null => {
  const version = (value as { version?: unknown } | null)?.version;
  return typeof version === 'number' ? version : null;
};

/** Resolves every entry's target in one query per kind (a page of 50 entries costs at most two). */
export async function describeAuditTargets(db: PrismaClient, entries: AuditView[]): Promise<Map<string, AuditTarget>> {
  const keyIds = [
    ...new Set(entries.filter((e) => e.target_type === 'api_key' && e.target_id && isUuid(e.target_id)).map((e) => e.target_id!)),
  ];
  const operatorIds = [
    ...new Set(entries.filter((e) => e.target_type === 'operator' && e.target_id && isUuid(e.target_id)).map((e) => e.target_id!)),
  ];
  const [keys, operators] = await Promise.all([
    keyIds.length ? db.apiKey.findMany({ where: { id: { in: keyIds } }, select: { id: true, prefix: true, label: true } }) : [],
    operatorIds.length ? db.operator.findMany({ where: { id: { in: operatorIds } }, select: { id: true, email: true } }) : [],
  ]);
  const keyById = new Map(keys.map((key) => [key.id, key]));
  const operatorById = new Map(operators.map((operator) => [operator.id, operator]));
  const targets = new Map<string, AuditTarget>();
  for (const entry of entries) {
    const id = entry.target_id;
    if (entry.target_type === 'api_key' && id) {
      const key = keyById.get(id);
      targets.set(entry.id, { type: 'api_key', id, prefix: key?.prefix ?? null, label: key?.label ?? null });
    } else if (entry.target_type === 'package' && id) {
      targets.set(entry.id, { type: 'package', id, slug: id, version: versionOf(entry.after), previous_version: versionOf(entry.before) });
    } else if (entry.target_type === 'operator' && id) {
      targets.set(entry.id, { type: 'operator', id, email: operatorById.get(id)?.email ?? null });
    } else {
      targets.set(entry.id, { type: entry.target_type, id });
    }
  }
  return targets;
}
