import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests, settleConfig } from '@/server/config';
import { ensureLocalSecrets } from '@/server/config/runtime-secrets';

// What `npm start` settles as it starts (generated secrets, the embedded database's URL) reaches
// every later read of the configuration (Next's pages read the same module: the server package),
// without anything written to process.env.

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetConfigForTests();
});

describe('settleConfig', () => {
  it('fills what the environment left unset, for the cached read and every later one', () => {
    delete process.env.SIGNING_SECRET;
    resetConfigForTests();
    expect(getConfig().SIGNING_SECRET).toBeUndefined();
    settleConfig({ SIGNING_SECRET: 's'.repeat(40), DATABASE_URL: 'postgres://u:p@127.0.0.1:5999/wgs' });
    expect(getConfig().SIGNING_SECRET).toBe('s'.repeat(40));
    expect(getConfig().DATABASE_URL).toBe('postgres://u:p@127.0.0.1:5999/wgs');
    resetConfigForTests(); // forgets what was settled too: the next read is the environment's alone
    expect(getConfig().SIGNING_SECRET).toBeUndefined();
    settleConfig({ SIGNING_SECRET: 's'.repeat(40) });
    expect(getConfig().SIGNING_SECRET).toBe('s'.repeat(40)); // settled before the first read
    expect(process.env.SIGNING_SECRET).toBeUndefined();
    expect(process.env.DATABASE_URL).toBe(saved.DATABASE_URL);
  });

  it('settles each value once: the same value again is fine, another one throws', () => {
    settleConfig({ NEXTAUTH_URL: 'http://localhost:3111' });
    expect(() => settleConfig({ NEXTAUTH_URL: 'http://localhost:3111' })).not.toThrow();
    expect(() => settleConfig({ NEXTAUTH_URL: 'http://localhost:3222' })).toThrow('NEXTAUTH_URL was settled already');
    expect(getConfig().NEXTAUTH_URL).toBe('http://localhost:3111');
  });
});

describe('ensureLocalSecrets (npm start on one machine)', () => {
  it('generates the secrets the environment lacks into the data dir and settles them, writing no variable', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wgs-secrets-'));
    for (const name of ['SIGNING_SECRET', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL']) delete process.env[name];
    process.env.WGS_DATA_DIR = dataDir;
    process.env.PORT = '3456';
    resetConfigForTests();
    ensureLocalSecrets(getConfig());

    const config = getConfig();
    expect(config.SIGNING_SECRET).toMatch(/^[\w-]{43}$/);
    expect(config.NEXTAUTH_SECRET).toMatch(/^[\w-]{43}$/);
    expect(config.NEXTAUTH_SECRET).not.toBe(config.SIGNING_SECRET);
    expect(config.NEXTAUTH_URL).toBe('http://localhost:3456');
    expect(existsSync(join(dataDir, 'signing.secret'))).toBe(true);
    for (const name of ['SIGNING_SECRET', 'NEXTAUTH_SECRET', 'NEXTAUTH_URL']) expect(process.env[name], name).toBeUndefined();

    // A second start reads the same secrets back.
    const first = config.SIGNING_SECRET;
    resetConfigForTests();
    ensureLocalSecrets(getConfig());
    expect(getConfig().SIGNING_SECRET).toBe(first);
  });

  it('keeps what the environment sets', () => {
    process.env.WGS_DATA_DIR = mkdtempSync(join(tmpdir(), 'wgs-secrets-'));
    process.env.SIGNING_SECRET = 'e'.repeat(40);
    process.env.NEXTAUTH_URL = 'https://ops.example.com';
    resetConfigForTests();
    ensureLocalSecrets(getConfig());
    expect(getConfig().SIGNING_SECRET).toBe('e'.repeat(40));
    expect(getConfig().NEXTAUTH_URL).toBe('https://ops.example.com');
    expect(existsSync(join(process.env.WGS_DATA_DIR, 'signing.secret'))).toBe(false);
  });
});
