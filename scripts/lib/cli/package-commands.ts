import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { ApiError, isApiError } from '../../../server/domain/errors';
import { parsePackagesText } from '../../../server/domain/packages/packages-file-text';
import { output, withDb } from './context';

// `cli packages`: apply a packages file, archive and unarchive a package.

export function addPackageCommands(program: Command): void {
  const packages = program.command('packages').description('Manage packages');
  packages
    .command('apply')
    .description('Create or update providers and packages from a JSON or YAML file, in one transaction')
    .argument('<file>', 'packages file (see packages.example.json)')
    .option('--json', 'print the result as JSON')
    .action((file: string, options: { json?: boolean }) =>
      withDb(async (prisma) => {
        const { applyPackages, parsePackagesFile } = await import('../../../server/domain/packages/apply-packages');
        const result = await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(await readPackagesFile(file)));
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
        withDb(async (prisma) => {
          const { setPackageArchived } = await import('../../../server/domain/packages/archive-package');
          const result = await setPackageArchived(prisma, CLI_ACTOR, slug, archived);
          output(Boolean(options.json), result, () =>
            result.archived_at ? `package ${slug}: archived (${result.archived_at})` : `package ${slug}: not archived`,
          );
        }),
      );
  }
}

/** A packages file is a few KB; a path that names something else (a device, a dump) is refused before it is read. */
const MAX_PACKAGES_FILE_BYTES = 10 * 1024 * 1024;

/** A file that cannot be read or parsed: `invalid_request` (a --json error's code). */
const fileProblem = (message: string) => new ApiError('invalid_request', { message });

async function readPackagesFile(file: string): Promise<unknown> {
  // npm run starts scripts in the project root; a relative path means the operator's directory.
  const path = resolve(process.env.INIT_CWD ?? process.cwd(), file);
  let bytes: Buffer;
  try {
    const info = statSync(path);
    if (!info.isFile()) throw fileProblem(`${file} is not a file`);
    if (info.size > MAX_PACKAGES_FILE_BYTES) throw fileProblem(`${file} is larger than 10 MiB, which no packages file needs`);
    bytes = readFileSync(path);
  } catch (error) {
    throw isApiError(error) ? error : fileProblem(`Cannot read ${file}`);
  }
  let text: string;
  try {
    // Refused, as a request body would be, rather than stored with U+FFFD in place of what was meant.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw fileProblem(`${file} is not valid UTF-8`);
  }
  try {
    return await parsePackagesText(text, file);
  } catch (error) {
    throw fileProblem((error as Error).message);
  }
}
