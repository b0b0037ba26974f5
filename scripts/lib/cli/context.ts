import { InvalidArgumentError } from 'commander';
import { provideDatabase, type ProvidedDatabase } from '../../../server/db/provide-database';

// What every CLI command shares: the database it opens on first use (and the entry point closes),
// and how it prints a result: one JSON object with --json, else a line for a person.

let database: ProvidedDatabase | undefined;

export async function withDb<T>(work: () => Promise<T>): Promise<T> {
  // Migration warnings (an applied migration edited since) go to stderr; --json keeps stdout clean.
  database = await provideDatabase({ log: (line) => line.startsWith('warning') && process.stderr.write(`${line}\n`) });
  return work();
}

export function output(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Decimal digits only: `1e3`, `0x10` or `12.0` are refused rather than read as some number. */
export const positiveInt = (value: string) => {
  const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number of at least 1, in decimal digits');
  return n;
};

/** Stops the embedded database the command started, if any. */
export async function closeDatabase(): Promise<void> {
  await database?.stop();
}
