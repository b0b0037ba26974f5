import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, stopEmbeddedPostgres, type EmbeddedDatabase } from '@/server/db/embedded-postgres';
import { REPO_ROOT, killAllSpawned, parseJsonOutput, runCli } from './support/processes';

// `keys webhook set|rotate|clear`, run as an operator runs them (a child process on the data
// dir's embedded PostgreSQL, running as while `npm start` serves: a command starting and stopping it
// itself is cli.test.ts's): the secret is printed once and never stored in the audit log.

const dataDir = mkdtempSync(join(tmpdir(), 'wgs-cli-webhooks-'));

let database: EmbeddedDatabase;
beforeAll(async () => {
  database = await startEmbeddedPostgres({ dataDir });
}, 120_000);

afterAll(async () => {
  killAllSpawned();
  await stopEmbeddedPostgres(dataDir).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

describe('cli keys webhook', () => {
  it('sets an endpoint with a whsec_ secret printed once, refuses a private one, rotates and clears', { timeout: 300_000 }, async () => {
    expect((await runCli(['packages', 'apply', join(REPO_ROOT, 'packages.example.json')], dataDir)).code).toBe(0);
    const created = parseJsonOutput(await runCli(['keys', 'create', '--package', 'starter', '--json'], dataDir)) as { id: string };

    const set = await runCli(['keys', 'webhook', 'set', created.id, '--url', 'https://hooks.example.com/wgs'], dataDir);
    expect(set.code, set.stderr).toBe(0);
    const secret = /signing secret \(shown once\): (whsec_\S+)/.exec(set.stdout)?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const refused = await runCli(['keys', 'webhook', 'set', created.id, '--url', 'http://127.0.0.1:8080/hook'], dataDir);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/https/);

    const rotated = parseJsonOutput(await runCli(['keys', 'webhook', 'rotate', created.id, '--json'], dataDir)) as {
      secret: string;
      url: string;
    };
    expect(rotated.url).toBe('https://hooks.example.com/wgs');
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);

    const listed = await runCli(['keys', 'list', '--json'], dataDir);
    expect(listed.stdout).not.toContain('whsec_');

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const stored = await client.query('SELECT webhook_url, webhook_secret FROM api_keys WHERE id = $1', [created.id]);
      expect(stored.rows[0]).toEqual({ webhook_url: 'https://hooks.example.com/wgs', webhook_secret: null });
      // The secret is stored sealed: no byte of it is readable in the table.
      const sealed = await client.query('SELECT ciphertext FROM webhook_secrets WHERE api_key_id = $1', [created.id]);
      expect(sealed.rows).toHaveLength(1);
      expect((sealed.rows[0].ciphertext as Buffer).toString('latin1')).not.toContain(rotated.secret.slice(6, 20));
      const audit = await client.query(`SELECT action, after::text AS after FROM audit_log WHERE target_id = $1 ORDER BY id`, [created.id]);
      expect(audit.rows.map((row) => row.action)).toEqual(['key.create', 'key.webhook.set', 'key.webhook.rotate']);
      expect(JSON.stringify(audit.rows)).not.toContain('whsec_');
    } finally {
      await client.end();
    }

    const cleared = parseJsonOutput(await runCli(['keys', 'webhook', 'clear', created.id, '--json'], dataDir));
    expect(cleared).toEqual({ id: created.id, url: null });
  });
});
