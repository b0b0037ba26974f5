import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, stopEmbeddedPostgres, type EmbeddedDatabase } from '@/server/db/embedded-postgres';
import {
  REPO_ROOT,
  childEnv,
  isRunning,
  killAllSpawned,
  parseJsonOutput,
  postgresProcessesOf,
  postmasterPid,
  runCli,
  type CliResult,
} from './support/processes';

// The real operator CLI, as an operator runs it: a child process with no DATABASE_URL, so it
// starts (or shares) the embedded PostgreSQL of its data dir.

const dirs: string[] = [];
function freshDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wgs-cli-'));
  dirs.push(dir);
  return dir;
}

/** A fresh data dir whose PostgreSQL runs for the tests of the describe block that calls this. */
function runningDataDir(): { dataDir: string; url: string } {
  const running = { dataDir: '', url: '' };
  let server: EmbeddedDatabase | undefined;
  beforeAll(async () => {
    running.dataDir = freshDataDir();
    server = await startEmbeddedPostgres({ dataDir: running.dataDir });
    running.url = server.url;
  });
  afterAll(() => server?.stop());
  return running;
}

/** Runs `work` on a connection of its own to the running server at `url`. */
async function inDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const count = async (client: pg.Client, table: string) =>
  Number((await client.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n);
const counts = async (client: pg.Client) => ({
  providers: await count(client, 'providers'),
  packages: await count(client, 'packages'),
  package_versions: await count(client, 'package_versions'),
  audit_log: await count(client, 'audit_log'),
  api_keys: await count(client, 'api_keys'),
});

const ok = (result: CliResult) => {
  expect(result, `stderr: ${result.stderr}`).toMatchObject({ code: 0 });
  return result;
};

const EXAMPLE = join(REPO_ROOT, 'packages.example.json');

afterAll(async () => {
  killAllSpawned();
  for (const dir of dirs) {
    await stopEmbeddedPostgres(dir).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('cli --help', () => {
  it('documents every command without touching a database', async () => {
    const dataDir = freshDataDir();
    const cases: [string[], RegExp[]][] = [
      [['--help'], [/packages/, /keys/, /operators/]],
      [['packages', '--help'], [/apply/]],
      [
        ['packages', 'apply', '--help'],
        [/<file>/, /--json/],
      ],
      [
        ['keys', '--help'],
        [/create/, /list/, /revoke/, /topup/],
      ],
      [
        ['keys', 'create', '--help'],
        [/--package <slug>/, /--label <text>/, /--json/],
      ],
      [
        ['keys', 'list', '--help'],
        [/--package <slug>/, /--status <status>/, /--json/],
      ],
      [
        ['keys', 'revoke', '--help'],
        [/<id>/, /--json/],
      ],
      [
        ['keys', 'topup', '--help'],
        [/<id>/, /--units <n>/],
      ],
      [
        ['operators', '--help'],
        [/create/, /disable/, /enable/],
      ],
      [
        ['operators', 'create', '--help'],
        [/--email <email>/, /--password <password>/],
      ],
      [
        ['providers', '--help'],
        [/set-key/, /list/],
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, dataDir)));
    results.forEach((result, i) => {
      const [args, patterns] = cases[i]!;
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/^Usage: cli /);
      for (const pattern of patterns) expect(result.stdout, args.join(' ')).toMatch(pattern);
    });
    expect(existsSync(join(dataDir, 'pg'))).toBe(false);
  });

  it('fails with a usage message on an unknown command or a missing required option', async () => {
    const dataDir = freshDataDir();
    const unknown = await runCli(['keys', 'destroy'], dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command 'destroy'/);
    const missing = await runCli(['keys', 'create'], dataDir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/required option '--package <slug>' not specified/);
    const badUnits = await runCli(['keys', 'topup', '00000000-0000-4000-8000-000000000000', '--units', '0'], dataDir);
    expect(badUnits.code).toBe(1);
    expect(badUnits.stderr).toMatch(/--units <n>.*at least 1/);
    expect(badUnits.stdout).toBe('');
    // A whole number past any count is too large, not something other than a number (CLI audit).
    const huge = await runCli(['keys', 'list', '--limit', '99999999999999999999'], dataDir);
    expect(huge.stderr).toMatch(/--limit <n>.*must be at most 999,999,999,999,999/);
    // With --json, stdout still carries exactly one JSON object.
    for (const args of [
      ['keys', 'topup', '00000000-0000-4000-8000-000000000000', '--units', 'abc', '--json'],
      ['keys', 'topup', '00000000-0000-4000-8000-000000000000', '--units', '1e3', '--json'],
      ['keys', 'topup', '00000000-0000-4000-8000-000000000000', '--units', '0x10', '--json'],
      ['keys', 'list', '--status', 'sleeping', '--json'],
      ['keys', 'create', '--json'],
    ]) {
      const result = await runCli(args, dataDir);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'invalid_arguments', message: expect.any(String) } });
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
    }
  });

  it("through `npm run cli -- ... --json` (CONTRACT.md §7's form) too: npm adds no banner to stdout", async () => {
    const env = childEnv({ WGS_DATA_DIR: freshDataDir() });
    for (const name of Object.keys(env)) if (name.toLowerCase().startsWith('npm_')) delete env[name]; // as from an operator's shell
    const result = spawnSync('npm', ['run', 'cli', '--', 'keys', 'create', '--json'], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'invalid_arguments', message: expect.any(String) } });
  });
});

// A command on a stopped data dir starts its PostgreSQL and stops it again (seconds of CPU each):
// that is proven once, below. The commands here share the data dir's server, running as while
// `npm start` serves, and what they do is the same either way.
describe("cli on the data dir's running PostgreSQL", { timeout: 400_000 }, () => {
  const running = runningDataDir();

  it('rejects a malformed packages file naming every wrong field, and writes nothing', async () => {
    const bad = join(running.dataDir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify({
        packages: [
          {
            slug: 'fine-one',
            name: 'Fine',
            quota_units: 10,
            limits: { requests_per_minute: 60, concurrency: 1 },
            operations: { 'text.generate': { engine: 'local', units: 1 } },
          },
          {
            slug: 'Broken Slug',
            name: 'Broken',
            quota_units: 'lots',
            limits: { requests_per_minute: 60, concurrency: 0 },
            colour: 'red',
            operations: { 'text.generate': { engine: 'nonsense engine', units: 1 } },
          },
        ],
      }),
    );
    const result = await runCli(['packages', 'apply', bad], running.dataDir);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    for (const path of [
      'packages.1.slug',
      'packages.1.quota_units',
      'packages.1.limits.concurrency',
      'packages.1.colour',
      'packages.1.operations.text.generate.engine',
    ]) {
      expect(result.stderr).toContain(path);
    }
    expect(result.stderr).not.toContain('packages.0');

    const asJson = await runCli(['packages', 'apply', bad, '--json'], running.dataDir);
    expect(asJson.code).toBe(1);
    const body = parseJsonOutput(asJson) as { error: { code: string; details: { issues: { path: string }[] } } };
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.issues.map((i) => i.path).sort()).toEqual([
      'packages.1.colour',
      'packages.1.limits.concurrency',
      'packages.1.operations.text.generate.engine',
      'packages.1.quota_units',
      'packages.1.slug',
    ]);

    // Valid shape, but an engine names a provider nobody defined: found inside the transaction,
    // after the file's providers were written, so this proves the rollback.
    const unknownProvider = join(running.dataDir, 'unknown-provider.json');
    writeFileSync(
      unknownProvider,
      JSON.stringify({
        providers: { main: { type: 'openai', base_url: 'https://api.example.com/v1', api_key_env: 'WGS_PROVIDER_KEY_MAIN_API_KEY' } },
        packages: [
          {
            slug: 'ghostly',
            name: 'Ghostly',
            quota_units: 10,
            limits: { requests_per_minute: 60, concurrency: 1 },
            operations: { 'code.generate': { engine: 'ghost:model-1', units: 1 } },
          },
        ],
      }),
    );
    const ghost = await runCli(['packages', 'apply', unknownProvider], running.dataDir);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('packages.0.operations.code.generate.engine');

    const notJson = join(running.dataDir, 'not-json.json');
    writeFileSync(notJson, '{"packages": [');
    const syntax = await runCli(['packages', 'apply', notJson], running.dataDir);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/not valid JSON/);
    // A repeated member (here the slug) is refused, not settled by JSON.parse keeping the last;
    // a relative path is read from the operator's directory (npm's INIT_CWD), not the project's.
    writeFileSync(
      join(running.dataDir, 'repeated.json'),
      readFileSync(EXAMPLE, 'utf8').replace('"slug": "starter",', '"slug": "starter", "slug": "text-only",'),
    );
    const repeated = await runCli(['packages', 'apply', 'repeated.json'], running.dataDir, undefined, { INIT_CWD: running.dataDir });
    expect(repeated.code).toBe(1);
    expect(repeated.stderr).toMatch(/repeated\.json is not valid JSON: the member "slug" appears twice/);
    const notUtf8 = join(running.dataDir, 'not-utf8.json');
    writeFileSync(notUtf8, Buffer.concat([Buffer.from('{"packages": [{"name": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]));
    const latin = await runCli(['packages', 'apply', notUtf8], running.dataDir);
    expect([latin.code, latin.stderr]).toEqual([1, expect.stringMatching(/not-utf8\.json is not valid UTF-8/)]);
    // A tag YAML cannot resolve is refused, not dropped with a warning and its text applied (packages audit).
    const tagged = join(running.dataDir, 'tagged.yaml');
    writeFileSync(tagged, 'packages:\n  - slug: p\n    name: !!js/function "function(){ return 1 }"\n');
    const tag = await runCli(['packages', 'apply', tagged], running.dataDir);
    expect([tag.code, tag.stderr]).toEqual([1, expect.stringMatching(/tagged\.yaml is not valid YAML: .*tag/i)]);
    const missingFile = await runCli(['packages', 'apply', join(running.dataDir, 'nope.json'), '--json'], running.dataDir);
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toMatch(/Cannot read/);
    expect(JSON.parse(missingFile.stdout)).toMatchObject({ error: { code: 'invalid_request' } });
    // A path that names no packages file (a device, a dump) is refused before it is read (it was read whole, for ever).
    for (const [path, said] of [
      ['/dev/zero', /\/dev\/zero is not a file/],
      [running.dataDir, /is not a file/],
    ] as const) {
      const refused = await runCli(['packages', 'apply', path, '--json'], running.dataDir);
      expect([refused.code, JSON.parse(refused.stdout).error.code, refused.stderr]).toEqual([
        1,
        'invalid_request',
        expect.stringMatching(said),
      ]);
    }
    const huge = join(running.dataDir, 'huge.json');
    writeFileSync(huge, Buffer.alloc(11 * 1024 * 1024, 0x20));
    const tooLarge = await runCli(['packages', 'apply', huge], running.dataDir);
    expect([tooLarge.code, tooLarge.stderr]).toEqual([1, expect.stringMatching(/huge\.json is larger than 10 MiB/)]);

    await inDatabase(running.url, async (client) => {
      expect(await counts(client)).toEqual({ providers: 0, packages: 0, package_versions: 0, audit_log: 0, api_keys: 0 });
    });
  });

  it('applies a valid file, and a second apply changes nothing', async () => {
    const first = ok(await runCli(['packages', 'apply', EXAMPLE], running.dataDir));
    expect(first.stdout.trim().split('\n')).toEqual(['package starter: created (version 1)', 'package text-only: created (version 1)']);
    const before = await inDatabase(running.url, counts);
    expect(before).toMatchObject({ packages: 2, package_versions: 2 });

    const second = ok(await runCli(['packages', 'apply', EXAMPLE, '--json'], running.dataDir));
    expect(parseJsonOutput(second)).toEqual({
      providers: [],
      packages: [
        { slug: 'starter', version: 1, status: 'unchanged' },
        { slug: 'text-only', version: 1, status: 'unchanged' },
      ],
      // The shipped example caps every text and code operation's output: nothing to say.
      notices: [],
    });
    expect(await inDatabase(running.url, counts)).toEqual(before);

    // And a malformed edit of a package that exists leaves it as it was.
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8'));
    example.packages[0].quota_units = -5;
    const broken = join(running.dataDir, 'broken-starter.json');
    writeFileSync(broken, JSON.stringify(example));
    const rejected = await runCli(['packages', 'apply', broken], running.dataDir);
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toContain('packages.0.quota_units');
    expect(await inDatabase(running.url, counts)).toEqual(before);
  });

  let issued: Record<string, unknown>;

  it('keys create --json prints exactly the documented object, and only a hash is stored', async () => {
    const result = ok(await runCli(['keys', 'create', '--package', 'starter', '--json'], running.dataDir));
    issued = parseJsonOutput(result);
    expect(Object.keys(issued).sort()).toEqual(['id', 'key', 'package', 'package_version', 'prefix', 'remaining_units']);
    expect(issued).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      key: expect.stringMatching(/^wgs_live_[0-9A-Za-z]{32,}$/),
      prefix: expect.any(String),
      package: 'starter',
      package_version: 1,
      remaining_units: 1000,
    });
    const key = issued.key as string;
    expect(key.startsWith(issued.prefix as string)).toBe(true);
    expect((issued.prefix as string).length).toBeLessThan(key.length - 16);

    await inDatabase(running.url, async (client) => {
      const { rows: columns } = await client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = 'api_keys' AND data_type IN ('text', 'character varying', 'character')`,
      );
      expect(columns.map((c) => c.column_name)).toEqual(expect.arrayContaining(['hash', 'prefix', 'label']));
      const secretBody = key.slice('wgs_live_'.length);
      for (const { column_name } of columns) {
        const { rows } = await client.query(`SELECT "${column_name}" AS value FROM api_keys WHERE "${column_name}" IS NOT NULL`);
        for (const row of rows) {
          expect(String(row.value), column_name).not.toContain(secretBody);
          expect(String(row.value), column_name).not.toContain(secretBody.slice(0, 20));
        }
      }
      // Nowhere else either (audit log included), in any table.
      const { rows: tables } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      for (const { table_name } of tables) {
        const { rows } = await client.query(`SELECT row_to_json(t)::text AS row FROM "${table_name}" t`);
        for (const row of rows) expect(row.row, table_name).not.toContain(secretBody);
      }
      const { rows } = await client.query(`SELECT hash FROM api_keys WHERE id = $1`, [issued.id]);
      expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/);
    });
  });

  it('keys list, topup and revoke work on that key; errors exit 1', async () => {
    const listed = parseJsonOutput(ok(await runCli(['keys', 'list', '--json'], running.dataDir))) as { keys: Record<string, unknown>[] };
    expect(listed.keys).toHaveLength(1);
    expect(listed.keys[0]).toMatchObject({
      id: issued.id,
      prefix: issued.prefix,
      status: 'active',
      package: 'starter',
      package_version: 1,
      remaining_units: 1000,
    });
    expect(listed.keys[0]).not.toHaveProperty('key');
    expect(JSON.stringify(listed)).not.toContain(issued.key as string);

    const topped = parseJsonOutput(ok(await runCli(['keys', 'topup', issued.id as string, '--units', '25', '--json'], running.dataDir)));
    expect(topped).toMatchObject({ id: issued.id, remaining_units: 1025 });
    const human = ok(await runCli(['keys', 'topup', issued.id as string, '--units', '5'], running.dataDir));
    expect(human.stdout.trim()).toBe(`${issued.id}: 1030 units remaining`);
    // Without SMTP_URL and MAIL_FROM the address is kept, and the operator is told the portal cannot confirm by mail.
    const emailed = ok(await runCli(['keys', 'email', issued.id as string, '--email', 'buyer@example.com'], running.dataDir));
    expect([emailed.stdout.trim(), emailed.stderr]).toEqual([
      `${issued.id}: buyer buyer@example.com`,
      expect.stringMatching(/notice: mail is off here/),
    ]);
    const cleared = ok(await runCli(['keys', 'email', issued.id as string, '--clear'], running.dataDir));
    expect(cleared.stderr).not.toMatch(/mail is off/);

    const revoked = parseJsonOutput(ok(await runCli(['keys', 'revoke', issued.id as string, '--json'], running.dataDir)));
    expect(revoked).toMatchObject({ id: issued.id, status: 'revoked', revoked_at: expect.any(String) });
    const toppedRevoked = await runCli(['keys', 'topup', issued.id as string, '--units', '5', '--json'], running.dataDir);
    expect(toppedRevoked.code).toBe(1);
    expect(parseJsonOutput(toppedRevoked)).toMatchObject({
      error: { code: 'validation_error', details: { issues: [{ code: 'key_revoked' }] } },
    });
    const activeOnly = parseJsonOutput(ok(await runCli(['keys', 'list', '--status', 'active', '--json'], running.dataDir)));
    expect(activeOnly).toEqual({ keys: [] });

    const unknownPackage = await runCli(['keys', 'create', '--package', 'no-such-package', '--json'], running.dataDir);
    expect(unknownPackage.code).toBe(1);
    expect(parseJsonOutput(unknownPackage)).toMatchObject({ error: { code: 'not_found' } });
    expect(unknownPackage.stderr).toMatch(/No package "no-such-package"/);
    const listedUnknown = await runCli(['keys', 'list', '--package', 'no-such-package'], running.dataDir);
    expect(listedUnknown.code).toBe(1);
    expect(listedUnknown.stderr).toMatch(/No package "no-such-package"/);
    // In production (NODE_ENV=production, as here) it seals provider keys with the instances' secret: a placeholder is refused as the production command refuses it.
    const placeholder = 'CHANGE-ME-a-third-secret-32-characters-or-more';
    const refused = await runCli(['keys', 'list', '--json'], running.dataDir, 90_000, { PROVIDER_KEYS_SECRET: placeholder });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('production mode refuses placeholder and guessable secrets: PROVIDER_KEYS_SECRET');
    expect(refused.stderr + refused.stdout).not.toContain(placeholder);
    const unknownKey = await runCli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], running.dataDir);
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toMatch(/No API key/);

    await inDatabase(running.url, async (client) => {
      const { rows } = await client.query(`SELECT status, remaining_units FROM api_keys WHERE id = $1`, [issued.id]);
      expect(rows).toEqual([{ status: 'revoked', remaining_units: 1030 }]);
      const { rows: audit } = await client.query(`SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id`, [issued.id]);
      expect(audit.map((a) => a.action)).toEqual(['key.create', 'key.topup', 'key.topup', 'key.email', 'key.email', 'key.revoke']);
    });

    // Without --limit every key is listed; with it, the newest n.
    for (const label of ['second', 'third'])
      ok(await runCli(['keys', 'create', '--package', 'starter', '--label', label, '--json'], running.dataDir));
    const all = parseJsonOutput(ok(await runCli(['keys', 'list', '--json'], running.dataDir))) as { keys: { label: string | null }[] };
    expect(all.keys.map((k) => k.label)).toEqual(['third', 'second', issued.label ?? null]);
    const newest = parseJsonOutput(ok(await runCli(['keys', 'list', '--limit', '2', '--json'], running.dataDir))) as {
      keys: { label: string | null }[];
    };
    expect(newest.keys.map((k) => k.label)).toEqual(['third', 'second']);
  });

  it('operators create stores a password hash, not the password; the first operator is an owner', async () => {
    const password = 'correct horse battery staple';
    const first = ok(
      await runCli(
        ['operators', 'create', '--email', 'ops@example.com', '--password', password, '--name', 'Ops', '--json'],
        running.dataDir,
      ),
    );
    // --password still works, with a warning that the process list shows it.
    expect(first.stderr).toContain('warning: --password shows the password in the process list');
    const created = parseJsonOutput(first);
    expect(created).toMatchObject({ id: expect.any(String), email: 'ops@example.com', role: 'owner' });
    await inDatabase(running.url, async (client) => {
      const { rows } = await client.query(`SELECT email, name, password_hash, role FROM operators`);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ email: 'ops@example.com', name: 'Ops', role: 'owner' });
      expect(rows[0].password_hash).not.toContain(password);
      expect(rows[0].password_hash.length).toBeGreaterThan(20);
    });
    // The documented way: the password on standard input, no warning; --role names the role.
    const piped = ok(
      await runCli(
        ['operators', 'create', '--email', 'helper@example.com', '--role', 'admin', '--json'],
        running.dataDir,
        90_000,
        {},
        'a piped long password\n',
      ),
    );
    expect(piped.stderr).not.toContain('warning');
    expect(parseJsonOutput(piped)).toMatchObject({ email: 'helper@example.com', role: 'admin' });
    await inDatabase(running.url, async (client) => {
      const { rows } = await client.query(`SELECT role FROM operators WHERE email = 'helper@example.com'`);
      expect(rows[0].role).toBe('admin');
    });
    const viewer = parseJsonOutput(
      ok(await runCli(['operators', 'create', '--email', 'v@example.com', '--json'], running.dataDir, 90_000, {}, 'another long password')),
    );
    expect(viewer).toMatchObject({ role: 'viewer' }); // no --role after the first: read only
    const badRole = await runCli(
      ['operators', 'create', '--email', 'x@example.com', '--role', 'root', '--password', password],
      running.dataDir,
    );
    expect(badRole.code).not.toBe(0);
    expect(badRole.stderr).toContain('Allowed choices are viewer, admin, owner');

    // The last owner can be neither disabled nor demoted; with a second owner, either works.
    const lastDisable = await runCli(['operators', 'disable', '--email', 'ops@example.com', '--json'], running.dataDir);
    expect(lastDisable.code).toBe(1);
    expect(parseJsonOutput(lastDisable)).toMatchObject({
      error: { code: 'validation_error', details: { issues: [{ code: 'last_owner' }] } },
    });
    const lastDemote = await runCli(['operators', 'set-role', '--email', 'ops@example.com', '--role', 'admin', '--json'], running.dataDir);
    expect(lastDemote.code).toBe(1);
    expect(parseJsonOutput(lastDemote)).toMatchObject({ error: { details: { issues: [{ code: 'last_owner' }] } } });
    expect(
      parseJsonOutput(
        ok(await runCli(['operators', 'set-role', '--email', 'helper@example.com', '--role', 'owner', '--json'], running.dataDir)),
      ),
    ).toMatchObject({ email: 'helper@example.com', role: 'owner' });
    await inDatabase(running.url, async (client) => {
      const { rows } = await client.query(`SELECT action, before, after FROM audit_log WHERE action = 'operator.role'`);
      expect(rows).toEqual([{ action: 'operator.role', before: { role: 'admin' }, after: { email: 'helper@example.com', role: 'owner' } }]);
    });

    const disabled = parseJsonOutput(ok(await runCli(['operators', 'disable', '--email', 'OPS@example.com', '--json'], running.dataDir)));
    expect(disabled).toEqual({ id: (created as { id: string }).id, email: 'ops@example.com', disabled: true, sessions_ended: 0 });
    await inDatabase(running.url, async (client) => {
      expect((await client.query(`SELECT disabled_at FROM operators WHERE email = 'ops@example.com'`)).rows[0].disabled_at).not.toBeNull();
    });
    expect(
      parseJsonOutput(ok(await runCli(['operators', 'enable', '--email', 'ops@example.com', '--json'], running.dataDir))),
    ).toMatchObject({
      disabled: false,
    });
    const unknown = await runCli(['operators', 'disable', '--email', 'nobody@example.com', '--json'], running.dataDir);
    expect(unknown.code).not.toBe(0);
    expect(parseJsonOutput(unknown)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('says each problem with a refused operator once', async () => {
    const one = await runCli(['operators', 'create', '--email', 'new-ops@example.com'], running.dataDir, 90_000, {}, 'short');
    expect(one.code).toBe(1);
    expect(one.stderr).toBe('error: password must be 12 to 200 characters\n');
    const two = await runCli(['operators', 'create', '--email', 'not-an-address'], running.dataDir, 90_000, {}, 'short');
    expect(two.code).toBe(1);
    expect(two.stderr).toBe('error: email must be an e-mail address\nerror: password must be 12 to 200 characters\n');
    const blank = await runCli(['operators', 'create', '--email', 'blank-ops@example.com'], running.dataDir, 90_000, {}, ' '.repeat(12));
    expect(blank.code).toBe(1);
    expect(blank.stderr).toBe('error: password must not be blanks only\n');
    // Characters are code points (CONTRACT.md §1): six emoji are six, whatever their 12 UTF-16 units.
    const emoji = await runCli(['operators', 'create', '--email', 'emoji-ops@example.com'], running.dataDir, 90_000, {}, '😀'.repeat(6));
    expect([emoji.code, emoji.stderr]).toEqual([1, 'error: password must be 12 to 200 characters\n']);
  });

  it('warns on stderr about an applied migration that was edited since, and still works', async () => {
    await inDatabase(running.url, (client) => client.query(`UPDATE "_prisma_migrations" SET checksum = repeat('0', 64)`));
    const result = ok(await runCli(['keys', 'list', '--json'], running.dataDir));
    expect((parseJsonOutput(result) as { keys: { id: string }[] }).keys.map((key) => key.id)).toContain(issued.id);
    expect(result.stderr).toMatch(/warning: migration \d+_\w+ was edited after it was applied/);
  });

  it('refuses a provider aimed at the service itself with one line, and says when an operation has no output cap', async () => {
    const file = join(running.dataDir, 'guarded.json');
    const write = (provider: Record<string, unknown>, operation: Record<string, unknown>) =>
      writeFileSync(
        file,
        JSON.stringify({
          providers: { main: { type: 'openai', ...provider } },
          packages: [
            {
              slug: 'guarded',
              name: 'Guarded',
              quota_units: 10,
              limits: { requests_per_minute: 60, concurrency: 1 },
              operations: { 'text.generate': { engine: 'main:gpt-4.1-mini', units: 1, ...operation } },
            },
          ],
        }),
      );
    // The test above left an edited migration behind: its warning lines are not the answer.
    const answer = (stderr: string) => stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: '));
    const before = await inDatabase(running.url, counts);
    write({ api_key_env: 'DATABASE_URL' }, { max_output_tokens: 100 });
    const secret = await runCli(['packages', 'apply', file], running.dataDir);
    expect(secret.code).toBe(1);
    expect(answer(secret.stderr)).toEqual([
      expect.stringMatching(/^error: providers\.main\.api_key_env: DATABASE_URL is a variable the service itself reads/),
    ]);
    write({ base_url: 'http://169.254.169.254/' }, { max_output_tokens: 100 });
    const metadata = await runCli(['packages', 'apply', file], running.dataDir);
    expect(metadata.code).toBe(1);
    expect(answer(metadata.stderr)).toEqual([
      expect.stringMatching(/^error: providers\.main\.base_url: 169\.254\.169\.254 is a cloud metadata/),
    ]);
    expect(await inDatabase(running.url, counts)).toEqual(before);

    write({ api_key_env: 'WGS_PROVIDER_KEY_MAIN_API_KEY' }, {});
    const applied = ok(await runCli(['packages', 'apply', file], running.dataDir));
    expect(applied.stderr).toContain(
      "notice: package guarded: text.generate has no output cap (max_output_tokens unset): each call may ask for the provider's own maximum",
    );
    expect(applied.stdout.trim().split('\n')).toEqual(['provider main: created', 'package guarded: created (version 1)']);
  });
});

// On a data dir of their own: the tests above count what their files wrote.
describe('cli: what CONTRACT.md §7 allows and what a terminal must not be sent', { timeout: 120_000 }, () => {
  const running = runningDataDir();

  it("applies CONTRACT.md §7's example packages file as written (its provider's key in MAIN_API_KEY)", async () => {
    const example = join(running.dataDir, 'contract-example.json');
    writeFileSync(
      example,
      JSON.stringify({
        providers: { main: { type: 'openai', base_url: 'https://api.example.com/v1', api_key_env: 'MAIN_API_KEY' } },
        packages: [
          {
            slug: 'contract-starter',
            name: 'Starter',
            quota_units: 1000,
            limits: { requests_per_minute: 60, concurrency: 4, max_upload_bytes: 26214400 },
            operations: {
              'text.generate': { engine: 'local', units: 1, output_formats: ['text', 'markdown'] },
              'code.generate': { engine: 'main:gpt-4.1-mini', units: 2 },
              'images.generate': {
                engine: 'local',
                units: 5,
                output_formats: ['png', 'webp'],
                styles: ['photo', 'sketch'],
                input_uploads: true,
              },
              'videos.generate': { engine: 'local', units: 20, input_uploads: false },
              'audio.speech': { engine: 'local', units: 3, voices: ['alloy'], languages: ['en', 'en-US'], output_formats: ['mp3', 'wav'] },
              'audio.transcribe': { engine: 'local', units: 4, languages: ['en'], timestamps: ['none', 'segment'] },
            },
          },
        ],
      }),
    );
    ok(await runCli(['packages', 'apply', example], running.dataDir));
    const issued = parseJsonOutput(ok(await runCli(['keys', 'create', '--package', 'contract-starter', '--json'], running.dataDir)));
    expect(issued).toMatchObject({ package: 'contract-starter', package_version: 1, remaining_units: 1000 });
  });

  it('refuses a label with control characters (an escape code or a line break for the next `keys list`), issuing nothing', async () => {
    ok(await runCli(['packages', 'apply', EXAMPLE], running.dataDir));
    const before = await inDatabase(running.url, counts);
    for (const label of ['a\u001b[31mb', 'first\nsecond']) {
      const result = await runCli(['keys', 'create', '--package', 'text-only', '--label', label, '--json'], running.dataDir);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout).error).toMatchObject({
        code: 'validation_error',
        message: expect.stringMatching(/^label must not contain control characters/),
      });
    }
    expect(await inDatabase(running.url, counts)).toEqual(before);
    // A label stored before the rule (or written past the CLI) is listed with its controls escaped.
    const issued = parseJsonOutput(
      ok(await runCli(['keys', 'create', '--package', 'text-only', '--label', 'old', '--json'], running.dataDir)),
    );
    await inDatabase(running.url, (client) => client.query(`UPDATE api_keys SET label = $1 WHERE id = $2`, ['x\u001b[2Jy\nz', issued.id]));
    const listed = ok(await runCli(['keys', 'list', '--package', 'text-only'], running.dataDir)).stdout;
    expect(listed).not.toContain('\u001b');
    expect(listed.split('\n').find((line) => line.startsWith(String(issued.id)))).toMatch(/ x\\u001b\[2Jy\\u000az$/);
  });
});

describe('cli on a stopped data dir', () => {
  it('starts its PostgreSQL (creating and migrating it the first time), and stops it when done', async () => {
    const dataDir = freshDataDir();
    ok(await runCli(['packages', 'apply', EXAMPLE], dataDir));
    expect(postgresProcessesOf(dataDir)).toEqual([]);
    const issued = parseJsonOutput(ok(await runCli(['keys', 'create', '--package', 'text-only', '--json'], dataDir)));
    expect(issued).toMatchObject({ package: 'text-only', package_version: 1 });
    expect(postgresProcessesOf(dataDir)).toEqual([]);
    expect(postmasterPid(dataDir)).toBeUndefined();
  });

  it('says how packages get into a database that has none, when asked for a key of one', async () => {
    const refused = await runCli(['keys', 'create', '--package', 'starter', '--json'], freshDataDir());
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('No package has been applied to this database yet: npm start applies packages.example.json'),
    });
  });

  it('runs commands started at once: one starts the server, the others share it, and the last one done stops it', async () => {
    const dataDir = freshDataDir();
    ok(await runCli(['packages', 'apply', EXAMPLE], dataDir));
    // Before, one of them failed: both started a server, or the first done stopped it under the others (outside audit).
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all([
        runCli(['keys', 'list', '--json'], dataDir),
        runCli(['keys', 'create', '--package', 'text-only', '--json'], dataDir),
        runCli(['packages', 'apply', EXAMPLE, '--json'], dataDir),
      ]);
      for (const result of results) expect(JSON.parse(ok(result).stdout.trim().split('\n').at(-1)!)).not.toHaveProperty('error');
      expect(postgresProcessesOf(dataDir)).toEqual([]);
      expect(postmasterPid(dataDir)).toBeUndefined();
    }
    const { keys } = parseJsonOutput(ok(await runCli(['keys', 'list', '--json'], dataDir))) as { keys: unknown[] };
    expect(keys).toHaveLength(2);
  });
});

describe("cli on a data dir whose PostgreSQL's owner is gone", () => {
  it('takes the orphan and stops it when done; its starter, stopping after, neither hangs nor blocks another command', async () => {
    const dataDir = freshDataDir();
    const server = await startEmbeddedPostgres({ dataDir });
    const pid = postmasterPid(dataDir)!;
    // What a starter killed (or a borrower interrupted after a hand-over) leaves: an owner that is gone.
    writeFileSync(join(dataDir, 'pg-owner'), `${JSON.stringify({ pid: 2 ** 22 + 1, startedAt: null, kind: 'cli' })}\n`);
    expect(parseJsonOutput(ok(await runCli(['keys', 'list', '--json'], dataDir)))).toEqual({ keys: [] });
    expect(isRunning(pid)).toBe(false);
    expect(postmasterPid(dataDir)).toBeUndefined();
    // The library's stop waits for an exit that came already: before, it hung here holding the data dir's lock.
    await server.stop();
    expect(parseJsonOutput(ok(await runCli(['keys', 'list', '--json'], dataDir)))).toEqual({ keys: [] });
    expect(postgresProcessesOf(dataDir)).toEqual([]);
  }, 120_000);
});

describe("cli while the data dir's PostgreSQL is already running", () => {
  let dataDir: string;
  let server: EmbeddedDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    dataDir = freshDataDir();
    server = await startEmbeddedPostgres({ dataDir });
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
  });

  afterAll(async () => {
    await client?.end().catch(() => {});
    await server?.stop();
  });

  it('uses that server, and does not stop it', async () => {
    expect(server.owned).toBe(true);
    const pid = postmasterPid(dataDir)!;
    expect(isRunning(pid)).toBe(true);

    ok(await runCli(['packages', 'apply', EXAMPLE], dataDir));
    const issued = parseJsonOutput(ok(await runCli(['keys', 'create', '--package', 'text-only', '--label', 'shared', '--json'], dataDir)));

    // Written through the very server (and connection) the test holds.
    const { rows } = await client.query(
      `SELECT k.label, k.remaining_units, p.slug FROM api_keys k
         JOIN package_versions v ON v.id = k.package_version_id JOIN packages p ON p.id = v.package_id WHERE k.id = $1`,
      [issued.id],
    );
    expect(rows).toEqual([{ label: 'shared', remaining_units: 500, slug: 'text-only' }]);
    expect(postmasterPid(dataDir)).toBe(pid);
    expect(isRunning(pid)).toBe(true);
    expect(postgresProcessesOf(dataDir)).toEqual([pid]);
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});

// A database that takes the connection and never answers (a stopped server, a silent port) is an
// error after the connection wait (10 s), never a command that hangs without a word.
describe('cli against a database that does not answer', { timeout: 60_000 }, () => {
  it('ends in one JSON error naming DATABASE_URL when its server accepts and stays silent', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, '127.0.0.1', listening));
    try {
      const port = (silent.address() as AddressInfo).port;
      const result = await runCli(['keys', 'list', '--json'], freshDataDir(), 40_000, {
        DATABASE_URL: `postgres://wgs:secret-password@127.0.0.1:${port}/wgs`,
        // A shared database in production needs the instances' secret (tests/unit/cli-production-secrets.test.ts).
        PROVIDER_KEYS_SECRET: randomBytes(32).toString('base64'),
      });
      expect(result.code).toBe(1);
      expect(result.stdout.trim().split('\n')).toHaveLength(1);
      const { error } = JSON.parse(result.stdout);
      expect(error.message).toMatch(
        new RegExp(`^DATABASE_URL: cannot use the database at 127\\.0\\.0\\.1:${port}/wgs: no answer within 10 s`),
      );
      expect(result.stdout + result.stderr).not.toContain('secret-password');
    } finally {
      silent.close();
    }
  });

  it('ends in one JSON error naming the data dir when its PostgreSQL is running but stopped', async () => {
    const dataDir = freshDataDir();
    const server = await startEmbeddedPostgres({ dataDir });
    const pid = postmasterPid(dataDir)!;
    process.kill(pid, 'SIGSTOP');
    try {
      const result = await runCli(['keys', 'list', '--json'], dataDir, 40_000);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toEqual({
        error: {
          code: 'error',
          message: expect.stringContaining(`the embedded PostgreSQL of ${dataDir} is running but did not answer within 10 s`),
        },
      });
    } finally {
      process.kill(pid, 'SIGCONT');
      await server.stop();
    }
  });
});

describe('cli with a stale postmaster.pid', () => {
  it('starts a fresh server when the recorded pid now belongs to some other process', async () => {
    const dataDir = freshDataDir();
    const first = await startEmbeddedPostgres({ dataDir });
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    const recorded = readFileSync(pidFile, 'utf8');
    await first.stop();
    expect(existsSync(pidFile)).toBe(false);
    // What a reboot or container restart leaves: the file of a server that is gone, naming
    // a pid that is now some other live process (here: this test's own).
    writeFileSync(pidFile, recorded.replace(/^\d+/, String(process.pid)));

    const listed = ok(await runCli(['keys', 'list', '--json'], dataDir));
    expect(parseJsonOutput(listed)).toEqual({ keys: [] });
    expect(postgresProcessesOf(dataDir)).toEqual([]);
  });
});
