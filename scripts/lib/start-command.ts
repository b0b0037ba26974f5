import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StartCommand {
  /** Environment the start script sets for node (`NAME=value` words before `node`). */
  env: Record<string, string>;
  /** The node arguments, heap cap included. */
  args: string[];
}

/**
 * `npm start` as package.json's start script runs it, so the benchmark and the tests that run
 * the product run it exactly as shipped.
 */
export function startCommand(root: string): StartCommand {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start!;
  const words = script.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words.shift() !== 'node') throw new Error(`npm start runs "${script}"; expected [NAME=value ...] node ...`);
  return { env, args: words };
}
