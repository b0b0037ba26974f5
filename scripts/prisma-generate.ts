// `prisma generate` without a network: the CLI wants its native schema engine, which it would
// download, but generation never runs it. A stand-in that refuses to run satisfies the CLI's
// check that the engine exists (migrations are applied by our own runner, npm run db:migrate).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const standIn = join(tmpdir(), 'wgs-prisma-schema-engine-stand-in');
if (!existsSync(standIn)) {
  mkdirSync(tmpdir(), { recursive: true });
  writeFileSync(standIn, '#!/bin/sh\necho "schema engine not available offline; use npm run db:migrate" >&2\nexit 1\n');
  chmodSync(standIn, 0o755);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? standIn,
  CHECKPOINT_DISABLE: '1',
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
const result = spawnSync(process.execPath, ['node_modules/prisma/build/index.js', 'generate'], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
