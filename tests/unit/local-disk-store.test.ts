import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDiskStore } from '@/server/storage/local-disk-store';

// The local store keeps objects readable by the app's user only: their names hold key and
// upload ids, their bytes customers' inputs and outputs.

const root = mkdtempSync(join(tmpdir(), 'wgs-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('LocalDiskStore', () => {
  it('creates its folders 0700 and its files 0600', async () => {
    await new LocalDiskStore(root).put('outputs/key-1/a.png', Buffer.from('x'), 'image/png');
    expect(statSync(join(root, 'outputs')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'outputs', 'key-1')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'outputs', 'key-1', 'a.png')).mode & 0o777).toBe(0o600);
  });
});
