import { InvalidArgumentError } from 'commander';
import type { ProvidedDatabase } from '../../../server/db/provide-database';
import type { SqlDb } from '../../../server/db/client';
import type { PrismaClient } from '../../../server/db/generated/client';
import { UNSAFE_DISPLAY_CHARACTERS } from '../../../server/contract/fields';

// What every CLI command shares: the database it opens on first use (and the entry point closes),
// and how it prints a result: one JSON object with --json, else a line for a person.
// The database code, like each command's domain module, is imported only when a command runs:
// `--help`, and every command, load no more than they use.

let database: ProvidedDatabase | undefined;
let connected = false;

/** Runs `work` on the database: the ORM's client, and the pg pool for named statements. */
export async function withDb<T>(work: (prisma: PrismaClient, sqlDb: SqlDb) => Promise<T>): Promise<T> {
  const { provideDatabase, toolRunsInProduction } = await import('../../../server/db/provide-database');
  // In production it acts with the instances' secrets (it seals provider keys with PROVIDER_KEYS_SECRET):
  // a missing, placeholder or guessable one is refused here as the production command refuses it.
  if (toolRunsInProduction()) {
    (await import('../../../server/instance/placeholder-secrets')).refusePlaceholderSecrets();
    const [{ getConfig }, { requireSharedProviderKeysSecret }] = await Promise.all([
      import('../../../server/config'),
      import('../../../server/config/runtime-secrets'),
    ]);
    requireSharedProviderKeysSecret(getConfig());
  }
  // Migration warnings (an applied migration edited since) go to stderr; --json keeps stdout clean.
  database = await provideDatabase({ borrow: true, log: (line) => line.startsWith('warning') && process.stderr.write(`${line}\n`) });
  const { getPrisma, getSqlDb } = await import('../../../server/db/client');
  connected = true;
  return work(getPrisma(), getSqlDb());
}

const CONTROL = new RegExp(UNSAFE_DISPLAY_CHARACTERS.source, 'gu');

/** Text from the database as a terminal may print it: each control or bidirectional-formatting character as its \u escape (an old label may hold one). */
export function printable(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

export function output(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Decimal digits only: `1e3`, `0x10` or `12.0` are refused rather than read as some number. */
export const positiveInt = (value: string) => {
  // A whole number too long for any count is refused as too large, not as something other than a number.
  if (/^\d{16,}$/.test(value.trim())) throw new InvalidArgumentError('must be at most 999,999,999,999,999');
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1, in decimal digits');
  return n;
};

/** Closes the command's connections, then stops the embedded database it started, if any. */
export async function closeDatabase(): Promise<void> {
  if (connected) {
    const { disconnectDb } = await import('../../../server/db/client');
    await disconnectDb().catch(() => {});
  }
  await database?.stop();
}
