import { Option, type Command } from 'commander';
import type { PrismaClient } from '../../../server/db/generated/client';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { SHOWN_KEY_STATUSES, type ShownKeyStatus } from '../../../server/contract/dashboard/key-status';
import { output, positiveInt, printable, withDb } from './context';
import { addKeyOwnerCommands } from './key-owner-commands';
import { addWebhookCommands } from './webhook-commands';

// `cli keys`: issue, list, revoke and top up API keys; `keys webhook` is in webhook-commands.ts.

export function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');
  addCreate(keys);
  addList(keys);
  addRevokeAndTopUp(keys);
  addKeyOwnerCommands(keys);
  addWebhookCommands(keys);
}

function addCreate(keys: Command): void {
  keys
    .command('create')
    .description('Issue a key locked to a package version; the secret is printed once')
    .requiredOption('--package <slug>', 'package slug')
    .option('--version <n>', 'package version (default: latest)', positiveInt)
    .option('--label <text>', 'label shown to operators (trimmed; 1 to 200 characters, no control ones)')
    .option('--json', 'print {"id","key","prefix","package","package_version","remaining_units"}')
    .action((options: { package: string; version?: number; label?: string; json?: boolean }) =>
      withDb(async (prisma) => {
        const { issueKey } = await import('../../../server/domain/keys/issue-key');
        const issued = await issueKey(prisma, CLI_ACTOR, {
          packageSlug: options.package,
          version: options.version,
          label: options.label,
        });
        output(Boolean(options.json), issued, () =>
          [
            `key:       ${issued.key}`,
            `id:        ${issued.id}`,
            `package:   ${issued.package} v${issued.package_version}`,
            `units:     ${issued.remaining_units}`,
            'Store the key now: it is not shown again.',
          ].join('\n'),
        );
      }),
    );
}

function addList(keys: Command): void {
  keys
    .command('list')
    .description("List API keys, newest first (a label's control characters shown as \\u escapes)")
    .option('--package <slug>', 'only keys of this package (a slug that names none is an error)')
    .addOption(new Option('--status <status>', 'only keys with this status (expired: its last day has passed)').choices(SHOWN_KEY_STATUSES))
    .option('--limit <n>', 'only the n newest (default: all)', positiveInt)
    .option('--json', 'print {"keys":[...]}')
    .action((options: { package?: string; status?: ShownKeyStatus; limit?: number; json?: boolean }) =>
      withDb(async (prisma) => {
        const items = await keysUpTo(prisma, options);
        output(Boolean(options.json), { keys: items }, () =>
          items.length === 0
            ? 'No keys.'
            : items
                .map(
                  (k) =>
                    `${k.id}  ${k.prefix}…  ${k.status.padEnd(9)}  ${k.package} v${k.package_version}  ${k.remaining_units} units  ${printable(k.label ?? '')}`,
                )
                .join('\n'),
        );
      }),
    );
}

function addRevokeAndTopUp(keys: Command): void {
  keys
    .command('revoke')
    .description('Revoke a key; it is refused on every instance within a second')
    .argument('<id>', 'key id')
    .option('--json', 'print the key')
    .action((id: string, options: { json?: boolean }) =>
      withDb(async (_prisma, sqlDb) => {
        const { revokeKey } = await import('../../../server/domain/keys/manage-keys');
        const key = await revokeKey(sqlDb, CLI_ACTOR, id);
        output(Boolean(options.json), key, () => `revoked ${key.id} (${key.prefix}…)`);
      }),
    );
  keys
    .command('topup')
    .description('Add units to a key')
    .argument('<id>', 'key id')
    .requiredOption('--units <n>', 'units to add: 1 to 1,000,000,000', positiveInt)
    .option('--json', 'print the key')
    .action((id: string, options: { units: number; json?: boolean }) =>
      withDb(async (prisma) => {
        const { topUpKey } = await import('../../../server/domain/billing/top-up-key');
        const key = await topUpKey(prisma, CLI_ACTOR, id, options.units);
        output(Boolean(options.json), key, () => `${key.id}: ${key.remaining_units} units remaining`);
      }),
    );
}

/** Page by page (1,000 at most each), until the limit or the last key. */
async function keysUpTo(prisma: PrismaClient, options: { package?: string; status?: ShownKeyStatus; limit?: number }) {
  const { listKeys } = await import('../../../server/domain/keys/manage-keys');
  // A slug that names no package is a typo, not a package without keys.
  if (options.package !== undefined && !(await prisma.package.findUnique({ where: { slug: options.package }, select: { id: true } }))) {
    const { ApiError } = await import('../../../server/domain/errors');
    throw new ApiError('not_found', { message: `No package "${options.package}".` });
  }
  const items: Awaited<ReturnType<typeof listKeys>>['items'] = [];
  let cursor: string | undefined;
  do {
    const wanted = Math.min(1000, (options.limit ?? Infinity) - items.length);
    const page = await listKeys(prisma, { packageSlug: options.package, status: options.status, limit: wanted, cursor });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && items.length < (options.limit ?? Infinity));
  return items;
}
