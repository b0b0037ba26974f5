import type { StartCommand } from '../lib/start-command';

// The runtime settings of package.json's start script that exist for performance, by the name
// BENCH_WITHOUT gives them. A run with BENCH_WITHOUT=malloc (say) starts the product without
// that setting, so runs with and without it, back to back on a quiet machine, show what it buys.

export const START_SETTINGS = {
  /** glibc malloc: two arenas, and blocks of 128 KiB and more mapped on their own (RSS). */
  malloc: { env: ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'], args: [] },
  /** V8's old-generation cap (RSS; more frequent full collections). */
  'heap-cap': { env: [], args: ['--max-old-space-size'] },
  /** V8's allocation-site pretenuring off (fewer objects promoted straight to the old generation). */
  pretenuring: { env: [], args: ['--no-allocation-site-pretenuring'] },
} as const;

export type StartSetting = keyof typeof START_SETTINGS;

/** The names in a BENCH_WITHOUT value (comma-separated); an unknown one is refused, not ignored. */
export function parseWithout(value: string | undefined): StartSetting[] {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(name in START_SETTINGS)) {
      throw new Error(`BENCH_WITHOUT: unknown setting "${name}" (known: ${Object.keys(START_SETTINGS).join(', ')})`);
    }
  }
  return names as StartSetting[];
}

const flagName = (arg: string) => arg.split('=')[0]!;

/** `start` without the named settings; a setting the start script does not have is an error (the run would measure nothing). */
export function withoutSettings(start: StartCommand, names: StartSetting[]): StartCommand {
  const env = { ...start.env };
  let args = [...start.args];
  for (const name of names) {
    const setting = START_SETTINGS[name];
    const present = setting.env.some((v) => v in env) || args.some((a) => (setting.args as readonly string[]).includes(flagName(a)));
    if (!present) throw new Error(`BENCH_WITHOUT=${name}: package.json's start script has no such setting`);
    for (const variable of setting.env) delete env[variable];
    args = args.filter((arg) => !(setting.args as readonly string[]).includes(flagName(arg)));
  }
  return { env, args };
}
