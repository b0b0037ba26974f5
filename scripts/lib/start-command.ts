import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The node arguments of `npm start` (package.json's start script, heap cap included), so the
 * benchmark and the tests that run the product run it exactly as shipped.
 */
export function startNodeArgs(root: string): string[] {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const [command, ...args] = script.split(/\s+/);
  if (command !== 'node') throw new Error(`npm start runs "${script}"; expected a node command`);
  return args;
}
