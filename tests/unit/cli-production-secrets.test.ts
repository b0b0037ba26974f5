import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '@/server/config';
import { requireSharedProviderKeysSecret } from '@/server/config/runtime-secrets';

// Outside audit: `NODE_ENV=production node dist/cli.js keys webhook set ...` without
// PROVIDER_KEYS_SECRET generated one into its data dir and sealed what no instance could open.

const ROOT = resolve(import.meta.dirname, '../..');
const REFUSAL = 'production mode needs PROVIDER_KEYS_SECRET with DATABASE_URL';
const dataDir = mkdtempSync(join(tmpdir(), 'wgs-cli-secret-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const strong = () => randomBytes(32).toString('base64');
// Port 1 answers nothing: the refusal must come before any connection.
const sharedDatabase = `postgres://wgs:${randomBytes(12).toString('hex')}@127.0.0.1:1/wgs`;

describe('the operator CLI in production', () => {
  it('needs PROVIDER_KEYS_SECRET on a shared database, not on the data dir’s embedded one', () => {
    const env = { NODE_ENV: 'production' as const, WGS_DATA_DIR: dataDir };
    expect(() => requireSharedProviderKeysSecret(readConfig({ ...env, DATABASE_URL: sharedDatabase }))).toThrow(REFUSAL);
    expect(() =>
      requireSharedProviderKeysSecret(readConfig({ ...env, DATABASE_URL: sharedDatabase, PROVIDER_KEYS_SECRET: strong() })),
    ).not.toThrow();
    expect(() => requireSharedProviderKeysSecret(readConfig(env))).not.toThrow();
  });

  it('refuses in one line, exit 1, and writes no secret into its data dir', { timeout: 60_000 }, () => {
    const run = spawnSync(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['scripts/cli.ts', 'keys', 'webhook', 'set', '00000000-0000-4000-8000-000000000000', '--url', 'https://example.com/hook', '--json'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        // Only what an operator's shell would hand it: no secret of the test run.
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          NODE_ENV: 'production',
          DATABASE_URL: sharedDatabase,
          WGS_DATA_DIR: dataDir,
        },
      },
    );
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^error: ${REFUSAL} \\(docs/deploy\\.md\\)`))]);
    expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'error', message: expect.stringContaining(REFUSAL) } });
    expect(existsSync(join(dataDir, 'provider-keys.secret'))).toBe(false);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
