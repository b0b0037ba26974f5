import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { seedExamplePackages } from '@/server/domain/packages/seed-example-packages';

// SEED_PACKAGES_FILE (outside audit): a file named there that is missing or invalid stopped
// nothing (a production start with no packages, without a word) or stopped the start without
// naming it; the default file may be absent.

const dir = mkdtempSync(join(tmpdir(), 'wgs-seed-'));

afterAll(() => disconnectDb());

describe('the packages file an instance seeds from', () => {
  it('named but missing: the start stops, naming the setting and the path', async () => {
    const missing = join(dir, 'nonexistent.json');
    await expect(seedExamplePackages(getPrisma(), getSqlDb(), missing)).rejects.toThrow(`SEED_PACKAGES_FILE: no file at ${missing}`);
  });

  it('named and invalid: the start stops, naming the file and each problem, on every start (not only the first)', async () => {
    const truncated = join(dir, 'truncated.json');
    writeFileSync(truncated, '{"packages": [');
    await expect(seedExamplePackages(getPrisma(), getSqlDb(), truncated)).rejects.toThrow(new RegExp(`^SEED_PACKAGES_FILE ${truncated}: `));
    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ packages: [{ slug: 'Not A Slug' }] }));
    const error = await seedExamplePackages(getPrisma(), getSqlDb(), wrong).catch((failure: Error) => failure);
    expect(String(error)).toMatch(new RegExp(`SEED_PACKAGES_FILE ${wrong}: The packages file is invalid\\.; `));
  });

  it('a YAML file (named .yaml or .yml) is read as YAML, as `packages apply` reads it (config audit: "not valid JSON")', async () => {
    const valid = join(dir, 'packages.yaml');
    const pkg =
      'packages:\n  - slug: seeded-yaml\n    name: Seeded\n    quota_units: 10\n    limits: { requests_per_minute: 5, concurrency: 1 }\n';
    writeFileSync(valid, `${pkg}    operations: { text.generate: { engine: local, units: 1 } }\n`);
    const applied = await seedExamplePackages(getPrisma(), getSqlDb(), valid);
    expect([[], ['seeded-yaml']]).toContainEqual(applied); // applied to an empty database, else checked only
    const wrong = join(dir, 'wrong.yml');
    writeFileSync(wrong, 'packages:\n  - slug: Not A Slug\n');
    const error = await seedExamplePackages(getPrisma(), getSqlDb(), wrong).catch((failure: Error) => failure);
    expect(String(error)).toMatch(new RegExp(`SEED_PACKAGES_FILE ${wrong}: The packages file is invalid\\.; `));
  });

  it('unset, the default file applies when present and is not required', async () => {
    const before = process.cwd();
    process.chdir(dir); // no packages.example.json here
    try {
      await expect(seedExamplePackages(getPrisma(), getSqlDb(), undefined)).resolves.toEqual([]);
    } finally {
      process.chdir(before);
    }
  });
});
