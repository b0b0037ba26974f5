import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDir } from '@/server/config/data-dir';

// WGS_DATA_DIR=/proc/nope made `npm start` spin at full CPU for ever, saying nothing: Node's
// recursive mkdirSync retries a parent that refuses a new entry with ENOENT without end.

describe('makeDataDir', () => {
  const root = mkdtempSync(join(tmpdir(), 'wgs-data-dir-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('makes the directory and its missing parents, and leaves one that exists', () => {
    const dataDir = join(root, 'a', 'b', 'c');
    makeDataDir(dataDir);
    expect(statSync(dataDir).isDirectory()).toBe(true);
    makeDataDir(dataDir);
    expect(existsSync(dataDir)).toBe(true);
  });

  it('refuses, naming the setting and the directory, where a parent takes no new entry', () => {
    expect(() => makeDataDir('/proc/wgs-nope/data')).toThrow(
      'WGS_DATA_DIR: cannot create /proc/wgs-nope (ENOENT); set it to a directory this user may write',
    );
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(() => makeDataDir(join(file, 'data'))).toThrow(`WGS_DATA_DIR: cannot create ${join(file, 'data')} (ENOTDIR)`);
  });
});
