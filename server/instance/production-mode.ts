import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config';
import { environmentCopy } from '../config/environment';
import { refusePlaceholderSecrets } from './placeholder-secrets';

// The production command (`npm run start:production`, the container's CMD) and the production
// worker (`npm run worker:production`): no build at start, no embedded PostgreSQL, no generated
// secrets, no migration unless MIGRATE_ON_START=true. `npm start` stays the one-machine
// convenience (builds when needed, embedded PostgreSQL, migrates, generates its secrets).

export const PRODUCTION_FLAG = '--production';

export function isProductionMode(argv: readonly string[] = process.argv): boolean {
  return argv.includes(PRODUCTION_FLAG);
}

/** What every instance (or worker) must be given, because they must all share it. */
const REQUIRED = {
  app: ['DATABASE_URL', 'SIGNING_SECRET', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL', 'PROVIDER_KEYS_SECRET'],
  worker: ['DATABASE_URL', 'SIGNING_SECRET', 'PROVIDER_KEYS_SECRET'],
} as const satisfies Record<string, (keyof Config)[]>;

/**
 * Throws one line naming the settings the production command lacks, or else the variables whose
 * values are placeholders or guessable secrets (placeholder-secrets.ts).
 */
export function requireProductionSettings(config: Config, role: keyof typeof REQUIRED, env: NodeJS.ProcessEnv = environmentCopy()): void {
  const missing = REQUIRED[role].filter((name) => !config[name]);
  if (missing.length > 0) {
    throw new Error(
      `production mode needs ${missing.join(', ')} (docs/configuration.md): it starts no embedded database and generates no secret, since every instance must share them`,
    );
  }
  refusePlaceholderSecrets(env);
}

/** Whether this start applies pending migrations: always on one machine, in production only when asked. */
export function migratesAtStart(config: Config, production: boolean): boolean {
  return !production || config.MIGRATE_ON_START === 'true';
}

/** The last file `next build` writes (see scripts/lib/ensure-build.ts). */
const COMPLETE_MARKER = 'export-marker.json';

/** Throws unless `distDir` holds a complete build: the production command never builds. */
export function requireBuild(root: string, distDir: string): void {
  if (!existsSync(join(root, distDir, COMPLETE_MARKER))) {
    throw new Error(`no complete build in ${distDir}: run \`npm run build\` first (production mode never builds at start)`);
  }
}
