import type { PrismaClient } from '../../db/generated/client';
import { sealWithConfiguredSecret } from '../../secrets/sealed-secrets';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import { zodValidationError } from '../zod-issues';
import { setProviderKeyInput } from './provider-key-input';

export interface ProviderKeySet {
  provider: string;
  key_source: 'stored';
  /** true when a stored key was replaced. */
  replaced: boolean;
  updated_at: string;
}

/**
 * Stores (or replaces) a provider's API key, encrypted, with an audit row in the same
 * transaction. The key is never returned, logged or written to the audit: only that it was set.
 */
export async function setProviderKey(db: PrismaClient, actor: Actor, input: unknown): Promise<ProviderKeySet> {
  const parsed = setProviderKeyInput.safeParse(input);
  // The issues name fields and rules only (zod leaves values out of them): the key is not echoed.
  if (!parsed.success) throw zodValidationError(parsed.error, input);
  const { provider, apiKey } = parsed.data;
  const sealed = sealWithConfiguredSecret(provider, apiKey);
  const result = await db.$transaction(async (tx) => {
    const exists = await tx.provider.findUnique({ where: { name: provider }, select: { name: true } });
    if (!exists) throw new ApiError('not_found', { message: `No provider named ${provider}: add it with packages apply first.` });
    const before = await tx.providerKey.findUnique({ where: { provider }, select: { updatedAt: true } });
    const data = {
      iv: new Uint8Array(sealed.iv),
      ciphertext: new Uint8Array(sealed.ciphertext),
      authTag: new Uint8Array(sealed.authTag),
      updatedBy: actor.label,
      updatedAt: new Date(),
    };
    const row = await tx.providerKey.upsert({ where: { provider }, create: { provider, ...data }, update: data });
    await recordAudit(tx, actor, {
      action: before ? 'provider.key_replaced' : 'provider.key_set',
      targetType: 'provider',
      targetId: provider,
      before: before ? { key: 'stored', updated_at: before.updatedAt } : undefined,
      after: { key: 'stored', updated_at: row.updatedAt },
    });
    return { provider, key_source: 'stored' as const, replaced: Boolean(before), updated_at: row.updatedAt.toISOString() };
  });
  // Loaded on use: the engines (SDKs, media tools) are not worth loading in a CLI process.
  const { forgetProviderEngines } = await import('./resolve-engine');
  forgetProviderEngines(provider);
  return result;
}
