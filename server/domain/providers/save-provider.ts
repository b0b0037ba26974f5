import { z } from 'zod';
import type { Prisma, PrismaClient } from '../../db/generated/client';
import { advisoryXactLock, CATALOGUE_LOCK } from '../../db/transaction-locks';
import { forgetProviderEngines } from './resolve-engine';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { canonicalJson } from '../canonical-json';
import { ApiError } from '../errors';
import { refuseUnpricingBudgets } from './budget-prices';
import { engineCapabilityIssues } from './check-engine-capabilities';
import { versionsInUse } from './versions-in-use';
import { providerExtrasOf, providerSchema, type PackageDefinition, type ProviderEntry } from '../../contract/package-schema';
import { zodValidationError } from '../zod-issues';
import { clearKeyOfMovedProvider } from './clear-moved-key';
import { refuseUnlessOwner } from './owner-only-destination';
import { providerEntryIssues } from './provider-guard';
import { PROVIDER_NAME, PROVIDER_NAME_RULE } from '../../contract/package-schema';
import { storedSettings } from './stored-settings';

// Adds or edits one provider from the dashboard: the entry is judged by the packages file's own
// provider schema, written and audited as `packages apply` writes it. A provider's name is its
// engines' prefix (`NAME:MODEL`), so it is fixed once created.

export const saveProviderInput = z.strictObject({
  name: z.string().regex(PROVIDER_NAME, PROVIDER_NAME_RULE),
  mode: z.enum(['create', 'update']),
  /** A packages-file provider entry: { type, base_url?, api_key_env?, ...the type's extras }. */
  // Taken as sent (z.record copies it, dropping a `__proto__` member): the entry's schema refuses what it does not know.
  entry: z.custom<Record<string, unknown>>(
    (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
    'entry must be an object',
  ),
});

export type SaveProviderInput = z.infer<typeof saveProviderInput>;

export interface SavedProvider {
  name: string;
  status: 'created' | 'updated' | 'unchanged';
  /** Present (true) when the edit moved the provider (type or base_url) and its stored key was deleted. */
  key_cleared?: true;
}

export async function saveProvider(db: PrismaClient, actor: Actor, input: unknown): Promise<SavedProvider> {
  const request = saveProviderInput.safeParse(input);
  if (!request.success) throw zodValidationError(request.error, input);
  const { name, mode } = request.data;
  // Empty form fields mean "not given", as an absent key in the packages file.
  const raw = Object.fromEntries(Object.entries(request.data.entry).filter(([, value]) => value !== '' && value !== null));
  const parsed = providerSchema.safeParse(raw);
  if (!parsed.success) throw zodValidationError(parsed.error, raw);
  const entry = parsed.data as ProviderEntry;
  const unsafe = providerEntryIssues(entry, '');
  if (unsafe.length > 0) throw ApiError.validation(unsafe);
  const data = {
    type: entry.type,
    baseUrl: entry.base_url ?? null,
    apiKeyEnv: entry.api_key_env ?? null,
    options: providerExtrasOf(entry),
    prices: (entry.prices ?? {}) as Prisma.InputJsonValue,
  };

  const result = await db.$transaction(async (tx) => {
    await advisoryXactLock(tx, CATALOGUE_LOCK);
    const existing = await tx.provider.findUnique({ where: { name } });
    if (mode === 'create') {
      if (existing)
        throw ApiError.validation([{ path: 'name', code: 'already_exists', message: `name: a provider named "${name}" exists` }]);
      refuseUnlessOwner(actor, '', null, data);
      await tx.provider.create({ data: { name, ...data } });
      await recordAudit(tx, actor, { action: 'provider.create', targetType: 'provider', targetId: name, after: data });
      return { name, status: 'created' as const };
    }
    if (!existing) throw new ApiError('not_found', { message: `No provider named ${name}.` });
    const before = storedSettings(existing);
    if (canonicalJson(before) === canonicalJson(data)) return { name, status: 'unchanged' as const };
    refuseUnlessOwner(actor, '', existing, data);
    if (existing.type !== data.type) await refuseTypeThatBreaksPackages(tx, name, data.type);
    await refuseUnpricingBudgets(tx, async () => void (await tx.provider.update({ where: { name }, data })), { path: 'entry.prices' });
    await recordAudit(tx, actor, { action: 'provider.update', targetType: 'provider', targetId: name, before, after: data });
    const cleared = await clearKeyOfMovedProvider(tx, actor, name, existing, data);
    return cleared ? { name, status: 'updated' as const, key_cleared: true as const } : { name, status: 'updated' as const };
  });
  if (result.status === 'updated') forgetProviderEngines(name);
  return result;
}

/**
 * A new type must still serve what the package versions in use sell through this provider (keys
 * stay locked to their version): otherwise the edit is refused, naming the first package.
 */
async function refuseTypeThatBreaksPackages(tx: Prisma.TransactionClient, name: string, type: string): Promise<void> {
  for (const version of await versionsInUse(tx, new Set([name]))) {
    const definition = { operations: version.operations } as PackageDefinition;
    const issue = engineCapabilityIssues(definition, 0, new Map([[name, type]]))[0];
    if (!issue) continue;
    // "… cannot honour it: WHY" says WHY; the others are said whole (a cut at no ': ' dropped their first letter).
    const cut = issue.message.indexOf(': ');
    const why = cut === -1 ? issue.message : issue.message.slice(cut + 2);
    throw ApiError.validation([
      {
        path: 'entry.type',
        code: 'breaks_packages',
        message: `type: package "${version.slug}" version ${version.version} sells through this provider, and ${why}`,
      },
    ]);
  }
}
