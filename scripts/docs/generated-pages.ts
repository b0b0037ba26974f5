// The reference pages generated from code, and the one formatting they all get (Prettier, with
// the project's settings), so a page written by `npm run docs:generate` is byte for byte what the
// drift test renders.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { renderCliReference } from './cli-reference';
import { renderPackagesFileReference } from './packages-file-reference';

const root = fileURLToPath(new URL('../..', import.meta.url));

export const GENERATED_PAGES = [
  { path: resolve(root, 'docs/packages-file.md'), render: renderPackagesFileReference },
  { path: resolve(root, 'docs/cli.md'), render: renderCliReference },
];

export async function formatMarkdown(markdown: string): Promise<string> {
  const options = (await resolveConfig(resolve(root, 'README.md'))) ?? {};
  return format(markdown, { ...options, parser: 'markdown' });
}
