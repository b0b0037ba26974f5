import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, stopEmbeddedPostgres, type EmbeddedDatabase } from '@/server/db/embedded-postgres';
import { killAllSpawned, parseJsonOutput, runCli } from './support/processes';

// `providers set-key NAME` (key on standard input) and `providers list --json`, run as an
// operator runs them: child processes on the data dir's embedded PostgreSQL, running as while
// `npm start` serves (a command starting and stopping it itself is cli.test.ts's).

const dataDir = mkdtempSync(join(tmpdir(), 'wgs-cli-providers-'));
const KEY = 'sk-cli-provider-key-0123456789';

let database: EmbeddedDatabase;
beforeAll(async () => {
  database = await startEmbeddedPostgres({ dataDir });
}, 120_000);

afterAll(async () => {
  killAllSpawned();
  await stopEmbeddedPostgres(dataDir).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cli providers', () => {
  it('set-key stores the key encrypted (never printed), list --json tells where each key comes from', { timeout: 300_000 }, async () => {
    const file = join(dataDir, 'packages.json');
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          main: { type: 'openai', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'WGS_PROVIDER_KEY_CLI_MAIN_KEY' },
          spare: { type: 'openai', base_url: 'http://127.0.0.1:8/v1', api_key_env: 'WGS_PROVIDER_KEY_CLI_SPARE_KEY' },
          bare: { type: 'openai', base_url: 'http://127.0.0.1:7/v1' },
        },
        packages: [
          {
            slug: 'fallbacks',
            name: 'Fallbacks',
            quota_units: 10,
            limits: { requests_per_minute: 10, concurrency: 1 },
            operations: { 'text.generate': { engine: ['main:gpt-4.1-mini', 'spare:llama', 'local'], units: 1 } },
          },
        ],
      }),
    );
    const applied = await runCli(['packages', 'apply', file, '--json'], dataDir);
    expect(applied.code, applied.stderr).toBe(0);

    const set = await runCli(['providers', 'set-key', 'main', '--json'], dataDir, 90_000, {}, `${KEY}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(parseJsonOutput(set)).toMatchObject({ provider: 'main', key_source: 'stored', replaced: false });
    expect(`${set.stdout}${set.stderr}`).not.toContain(KEY);
    // No PROVIDER_KEYS_SECRET: one was generated into the data dir, as SIGNING_SECRET is.
    expect(existsSync(join(dataDir, 'provider-keys.secret'))).toBe(true);

    const replaced = await runCli(['providers', 'set-key', 'main'], dataDir, 90_000, {}, 'sk-replacement-key');
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toMatch(/provider main: key replaced/);

    const listed = await runCli(['providers', 'list', '--json'], dataDir, 90_000, { WGS_PROVIDER_KEY_CLI_SPARE_KEY: 'sk-spare-env' });
    expect(listed.code, listed.stderr).toBe(0);
    const { providers } = parseJsonOutput(listed) as {
      providers: { name: string; type: string; base_url: string; key: { set: boolean; source: string } }[];
    };
    expect(providers.map((p) => [p.name, p.type, p.base_url, p.key.set, p.key.source])).toEqual([
      ['bare', 'openai', 'http://127.0.0.1:7/v1', false, 'none'],
      ['main', 'openai', 'http://127.0.0.1:9/v1', true, 'stored'],
      ['spare', 'openai', 'http://127.0.0.1:8/v1', true, 'env'],
    ]);
    expect(listed.stdout).not.toContain('sk-');
    // As text: where each key comes from in operating.md's words, a stored key with when it was stored.
    const plain = await runCli(['providers', 'list'], dataDir, 90_000, { WGS_PROVIDER_KEY_CLI_SPARE_KEY: 'sk-spare-env' });
    expect(plain.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^bare {2}openai {2}http:\/\/127\.0\.0\.1:7\/v1 {2}key: none/),
      expect.stringMatching(/^main {2}openai {2}http:\/\/127\.0\.0\.1:9\/v1 {2}key: stored \d{4}-\d\d-\d\dT[\d:.]+Z/),
      expect.stringMatching(/^spare {2}openai {2}http:\/\/127\.0\.0\.1:8\/v1 {2}key: env {2}\(env WGS_PROVIDER_KEY_CLI_SPARE_KEY\)$/),
    ]);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT ciphertext FROM provider_keys WHERE provider = 'main'");
      expect(rows).toHaveLength(1);
      // The whole stored key, not a prefix: random ciphertext bytes spell any three characters now and then.
      expect(rows[0].ciphertext.toString('latin1')).not.toContain('sk-replacement-key');
      const audit = await client.query(
        "SELECT action, actor_type, before::text, after::text FROM audit_log WHERE action LIKE 'provider.key%' ORDER BY id",
      );
      expect(audit.rows.map((row) => [row.action, row.actor_type])).toEqual([
        ['provider.key_set', 'cli'],
        ['provider.key_replaced', 'cli'],
      ]);
      expect(JSON.stringify(audit.rows)).not.toContain('sk-');
    } finally {
      await client.end();
    }
  });

  it('set-key refuses an unknown provider and an empty key, exit 1, nothing stored', { timeout: 300_000 }, async () => {
    const unknown = await runCli(['providers', 'set-key', 'nobody', '--json'], dataDir, 90_000, {}, 'sk-for-nobody');
    expect(unknown.code).toBe(1);
    expect(parseJsonOutput(unknown)).toMatchObject({ error: { code: 'not_found' } });
    expect(`${unknown.stdout}${unknown.stderr}`).not.toContain('sk-for-nobody');
    const empty = await runCli(['providers', 'set-key', 'spare'], dataDir, 90_000, {}, '\n');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/apiKey: the key is empty/);
    expect(empty.stderr).not.toMatch(/printable characters/); // said once, not also as wrong characters
    const listed = parseJsonOutput(await runCli(['providers', 'list', '--json'], dataDir)) as {
      providers: { name: string; key: { source: string } }[];
    };
    expect(listed.providers.find((p) => p.name === 'spare')!.key.source).toBe('none');
  });
});
