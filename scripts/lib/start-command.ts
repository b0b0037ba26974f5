import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StartCommand {
  /** Environment the start script sets for node (`NAME=value` words before `exec node`). */
  env: Record<string, string>;
  /** The node arguments, heap cap included. */
  args: string[];
}

/**
 * `npm start` (or another package.json script that runs node, such as `start:production`) as
 * package.json runs it, so the benchmark and the tests that run the product run it exactly as shipped.
 */
export function startCommand(root: string, name = 'start'): StartCommand {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const script = scripts[name];
  if (!script) throw new Error(`package.json has no ${name} script`);
  const words = script.split(/\s+/);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  // `exec`: the shell npm starts becomes node, so a signal npm passes on (SIGTERM) reaches it.
  if (words[0] === 'exec') words.shift();
  if (words.shift() !== 'node') throw new Error(`npm run ${name} runs "${script}"; expected [NAME=value ...] [exec] node ...`);
  return { env, args: words };
}
