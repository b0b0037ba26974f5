import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
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

  it('a read that has begun keeps its bytes when the object is deleted meanwhile', async () => {
    // Two completes of one upload race: the winner deletes the unsealed copy the other reads.
    const store = new LocalDiskStore(root);
    const bytes = Buffer.alloc(256 * 1024, 7);
    await store.put('uploads/key-1/upl_race', bytes, 'image/png');
    const object = await store.get('uploads/key-1/upl_race');
    rmSync(join(root, 'uploads', 'key-1', 'upl_race')); // at once, before any further read
    expect(object?.size).toBe(bytes.length);
    expect((await buffer(object!.body)).equals(bytes)).toBe(true);
    expect(await store.get('uploads/key-1/upl_race')).toBeNull();
  });

  it('deletes the temp files of writes a killed process left, an hour old, and nothing else', async () => {
    const store = new LocalDiskStore(root);
    const folder = join(root, 'uploads', 'key-2');
    mkdirSync(folder, { recursive: true });
    const old = new Date(Date.now() - 2 * 3_600_000);
    const files = {
      left: join(folder, 'upl_a.0123456789ab.part'),
      writing: join(folder, 'upl_b.0123456789ab.part'),
      object: join(folder, 'upl_c'),
      named: join(folder, 'upl_d.part'),
    };
    for (const path of Object.values(files)) writeFileSync(path, 'x');
    for (const path of [files.left, files.object, files.named]) utimesSync(path, old, old);
    expect(await store.deleteAbandonedParts(new Date(Date.now() - 3_600_000))).toBe(1);
    expect(Object.entries(files).map(([name, path]) => [name, existsSync(path)])).toEqual([
      ['left', false],
      ['writing', true],
      ['object', true],
      ['named', true],
    ]);
    expect(await new LocalDiskStore(join(root, 'none')).deleteAbandonedParts(new Date())).toBe(0);
  });
});
