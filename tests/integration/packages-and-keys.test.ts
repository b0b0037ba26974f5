import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { issueKey } from '@/server/domain/keys/issue-key';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { setPackageArchived } from '@/server/domain/packages/archive-package';

afterAll(() => disconnectDb());

const file = (slug: string, quota = 100) => ({
  packages: [
    {
      slug,
      name: 'Test',
      quota_units: quota,
      limits: { requests_per_minute: 60, concurrency: 2 },
      operations: { 'text.generate': { engine: 'local', units: 1 } },
    },
  ],
});

describe('packages apply', () => {
  it('keeps the version when nothing changed and makes a new one when something did', async () => {
    const prisma = getPrisma();
    const first = await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file('pk-versions')));
    const again = await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file('pk-versions')));
    const changed = await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file('pk-versions', 200)));
    expect(first.packages).toEqual([{ slug: 'pk-versions', version: 1, status: 'created' }]);
    expect(again.packages).toEqual([{ slug: 'pk-versions', version: 1, status: 'unchanged' }]);
    expect(changed.packages).toEqual([{ slug: 'pk-versions', version: 2, status: 'updated' }]);
  });

  it('makes no version for what is written another way but means the same: a one-engine list, a default written out (packages audit)', async () => {
    const prisma = getPrisma();
    const apply = (change: (definition: Record<string, unknown> & { operations: Record<string, { engine: unknown }> }) => void) => {
      const written = file('pk-same-terms');
      change(written.packages[0]! as never);
      return applyPackages(prisma, CLI_ACTOR, parsePackagesFile(written)).then((result) => result.packages[0]);
    };
    expect(await apply(() => {})).toEqual({ slug: 'pk-same-terms', version: 1, status: 'created' });
    expect(await apply((p) => (p.operations['text.generate']!.engine = ['local']))).toMatchObject({ version: 1, status: 'unchanged' });
    expect(await apply((p) => (p.openai_compatible = { require_idempotency_key: false }))).toMatchObject({
      version: 1,
      status: 'unchanged',
    });
    expect(await apply((p) => (p.openai_compatible = { require_idempotency_key: true }))).toMatchObject({ version: 2, status: 'updated' });
    const stored = await prisma.packageVersion.findFirstOrThrow({ where: { package: { slug: 'pk-same-terms' }, version: 1 } });
    expect(stored.operations).toEqual({ 'text.generate': { engine: 'local', units: 1 } });
  });

  it('says, applying an archived package, that it stays archived (packages audit: the output did not mention it)', async () => {
    const prisma = getPrisma();
    await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file('pk-archived-apply')));
    await setPackageArchived(prisma, CLI_ACTOR, 'pk-archived-apply', true);
    const again = await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file('pk-archived-apply', 300)));
    expect(again.packages).toEqual([{ slug: 'pk-archived-apply', version: 2, status: 'updated' }]);
    expect(again.notices).toContain(
      'package pk-archived-apply is archived: no key can be issued on it (packages unarchive pk-archived-apply offers it again)',
    );
  });

  it('rejects an engine naming an unknown provider and changes nothing', async () => {
    const bad = file('pk-unknown-provider');
    bad.packages[0]!.operations['text.generate'].engine = 'ghost:model-1';
    await expect(applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(bad))).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(await getPrisma().package.findUnique({ where: { slug: 'pk-unknown-provider' } })).toBeNull();
  });

  it('a provider is an http(s) server without credentials in its URL, under a name the message explains', () => {
    const withProvider = (name: string, baseUrl: string) => ({
      ...file('pk-provider'),
      providers: { [name]: { type: 'openai', base_url: baseUrl } },
    });
    const issuesOf = (raw: unknown) => {
      try {
        parsePackagesFile(raw);
        return [];
      } catch (error) {
        return (error as { details: { issues: { path: string; message: string }[] } }).details.issues;
      }
    };
    expect(issuesOf(withProvider('main', 'https://api.example.com/v1'))).toEqual([]);
    expect(issuesOf(withProvider('main', 'http://127.0.0.1:8080/v1'))).toEqual([]);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'ftp://x/y', 'mailto:x@y.z', 'not a url']) {
      expect(issuesOf(withProvider('main', url))).toEqual([
        expect.objectContaining({ path: 'providers.main.base_url', message: expect.stringContaining('http:// or https://') }),
      ]);
    }
    expect(issuesOf(withProvider('main', 'http://user:pass@127.0.0.1:8080/v1'))).toEqual([
      expect.objectContaining({ path: 'providers.main.base_url', message: expect.stringContaining('api_key_env') }),
    ]);
    expect(issuesOf(withProvider('Main', 'https://api.example.com/v1'))).toEqual([
      expect.objectContaining({ path: 'providers.Main', message: expect.stringContaining('lowercase letters, digits, _ and -') }),
    ]);
    // The built-in engine's name: the dashboard's engine picker offered two `local`s and served the built-in one (dashboard audit).
    expect(issuesOf(withProvider('local', 'https://api.example.com/v1'))).toEqual([
      expect.objectContaining({ path: 'providers.local', message: expect.stringContaining('not "local" (the built-in engine)') }),
    ]);
    expect(issuesOf(withProvider('local2', 'https://api.example.com/v1'))).toEqual([]);
    const priced = withProvider('main', 'https://api.example.com/v1') as unknown as { providers: { main: Record<string, unknown> } };
    priced.providers.main.prices = { 'model-x': { input_per_mtok: -1 } };
    expect(issuesOf(priced)).toEqual([
      expect.objectContaining({
        path: 'providers.main.prices.model-x.input_per_mtok',
        message: "providers.main.prices.model-x.input_per_mtok: must be an amount from 0 to 1,000,000,000 (in the deployment's CURRENCY)",
      }),
    ]);
    expect(issuesOf(file('x'.repeat(64)))).toEqual([
      expect.objectContaining({ path: 'packages.0.slug', message: expect.stringContaining('1 to 63 characters') }),
    ]);
  });

  it('bounds what a provider entry may hold and shows a package name as what it is (tRPC audit: a 900 KB base_url was stored and shown)', () => {
    const refusedAt = (raw: unknown) => {
      try {
        parsePackagesFile(raw);
        return [];
      } catch (error) {
        return (error as { details: { issues: { path: string; message: string }[] } }).details.issues.map((issue) => issue.path);
      }
    };
    const provider = (entry: Record<string, unknown>) => ({ ...file('pk-bounds'), providers: { main: { type: 'openai', ...entry } } });
    expect(refusedAt(provider({ base_url: `https://api.example.com/${'a'.repeat(1_976)}` }))).toEqual([]);
    expect(refusedAt(provider({ base_url: `https://api.example.com/${'a'.repeat(1_977)}` }))).toEqual(['providers.main.base_url']);
    expect(refusedAt(provider({ api_key_env: `${'A'.repeat(121)}_API_KEY` }))).toEqual(['providers.main.api_key_env']);
    const prices = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}`, { input_per_mtok: 1 }]));
    expect(refusedAt(provider({ prices: prices(1_000) }))).toEqual([]);
    expect(refusedAt(provider({ prices: prices(1_001) }))).toEqual(['providers.main.prices']);
    const named = (name: string) => ({ packages: [{ ...file('pk-named').packages[0], name }] });
    expect(refusedAt(named('Team \u00e9 😀'))).toEqual([]);
    for (const name of ['Ctl\u001b[31mred', 'invoice\u202efdp', 'a\u2066b'])
      expect(refusedAt(named(name)), name).toEqual(['packages.0.name']);
  });
});

describe('keys', () => {
  it('stores only the hash of an issued key', async () => {
    await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('pk-keys', 42)));
    const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', label: 'hash check' });
    expect(issued.key).toMatch(/^wgs_live_[0-9A-Za-z]{40}$/);
    expect(issued.remaining_units).toBe(42);
    const { rows } = await getPool().query('SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1', [issued.id]);
    expect(rows[0].row).not.toContain(issued.key);
    expect(rows[0].row).toContain(hashKeySecret(issued.key));
  });

  it('a version no package can have (0, 2^31, 2.5) is 404, not a database error', async () => {
    await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('pk-keys', 42)));
    for (const version of [0, 2 ** 31, 2.5, Number.MAX_SAFE_INTEGER]) {
      await expect(issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', version })).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('refuses an empty label as too short and a 201-character one as too long, counting code points (an emoji is 1)', async () => {
    await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('pk-keys', 42)));
    await expect(issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', label: '😀'.repeat(200) })).resolves.toBeDefined();
    for (const [label, code] of [
      ['', 'too_short'],
      ['   ', 'too_short'], // trimmed, as the dashboard's form trims it (keys audit: the CLI kept a label of spaces)
      ['x'.repeat(201), 'too_long'],
      ['😀'.repeat(201), 'too_long'],
    ] as const) {
      await expect(issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', label })).rejects.toMatchObject({
        code: 'validation_error',
        details: { issues: [{ path: 'label', code, message: 'label must be 1 to 200 characters' }] },
      });
    }
    // A label shows as what it is: no bidirectional override (tRPC audit: "\u202eevil" reached the CLI's terminal raw).
    for (const label of ['team\u001b[2J', 'invoice\u202efdp.exe', 'a\u2067b']) {
      await expect(issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', label }), label).rejects.toMatchObject({
        details: { issues: [{ path: 'label', code: 'control_characters' }] },
      });
    }
    const padded = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys', label: '  team a  ' });
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: padded.id } })).label).toBe('team a');
  });

  it('audits the revocation of an expired key as expired before (keys audit: it said active)', async () => {
    await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('pk-keys', 42)));
    const { id } = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'pk-keys' });
    await getPool().query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await revokeKey(getSqlDb(), CLI_ACTOR, id);
    const entry = await getPrisma().auditLog.findFirstOrThrow({ where: { targetId: id, action: 'key.revoke' } });
    expect([entry.before, entry.after]).toEqual([{ status: 'expired' }, { status: 'revoked' }]);
  });

  it('issued while its package is archived: each key either refused or written before the archive, its audit entry first (tRPC audit)', async () => {
    const prisma = getPrisma();
    for (let round = 0; round < 5; round++) {
      const slug = `pk-archive-race-${round}`;
      await applyPackages(prisma, CLI_ACTOR, parsePackagesFile(file(slug)));
      const issues = Array.from({ length: 4 }, () =>
        issueKey(prisma, CLI_ACTOR, { packageSlug: slug }).then(
          (key) => key.id,
          () => null,
        ),
      );
      await setPackageArchived(prisma, CLI_ACTOR, slug, true);
      const issued = (await Promise.all(issues)).filter((id) => id !== null);
      const archive = await prisma.auditLog.findFirstOrThrow({ where: { action: 'package.archive', targetId: slug } });
      const created = await prisma.auditLog.findMany({ where: { action: 'key.create', targetId: { in: issued } } });
      expect(created).toHaveLength(issued.length);
      for (const entry of created) expect(entry.id < archive.id, `${slug}: key ${entry.targetId}`).toBe(true);
    }
  });
});
