import type { Command } from 'commander';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { readSecretFromStdin } from '../read-secret';
import { output, withDb } from './context';

// `cli providers`: list providers and store their API keys.

/** Where a provider's key comes from, as operating.md names it: stored (with when), env, none, or refused (with why). */
function keyShown(key: { source: string; updated_at: string | null; problem?: string }): string {
  if (key.source === 'stored' && key.updated_at) return `stored ${key.updated_at}`;
  return key.problem ? `${key.source}: ${key.problem}` : key.source;
}

export function addProviderCommands(program: Command): void {
  const providers = program.command('providers').description('Manage engine providers and their API keys');
  providers
    .command('list')
    .description('List providers: type, base URL, and whether a key is set and where from (stored, env)')
    .option('--json', 'print {"providers":[...]}')
    .action((options: { json?: boolean }) =>
      withDb(async (prisma) => {
        const { listProviders } = await import('../../../server/domain/providers/list-providers');
        const items = await listProviders(prisma);
        output(Boolean(options.json), { providers: items }, () =>
          items.length === 0
            ? 'No providers.'
            : items
                .map(
                  (p) =>
                    `${p.name}  ${p.type}  ${p.base_url ?? "(the type's own URL)"}  key: ${keyShown(p.key)}${p.api_key_env ? `  (env ${p.api_key_env})` : ''}`,
                )
                .join('\n'),
        );
      }),
    );
  providers
    .command('set-key')
    .description("Store (or replace) a provider's API key, read from standard input, encrypted; it is never shown again")
    .argument('<name>', 'provider name, as in the packages file')
    .option('--json', 'print {"provider","key_source","replaced","updated_at"}')
    .action(async (name: string, options: { json?: boolean }) => {
      const apiKey = await readSecretFromStdin(`API key for ${name} (not shown): `);
      await withDb(async (prisma) => {
        const { setProviderKey } = await import('../../../server/domain/providers/set-provider-key');
        const result = await setProviderKey(prisma, CLI_ACTOR, { provider: name, apiKey });
        output(
          Boolean(options.json),
          result,
          () => `provider ${result.provider}: key ${result.replaced ? 'replaced' : 'stored'} (encrypted)`,
        );
      });
    });
}
