import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type ObjectStore, type StoredObject } from './object-store';
import { selectBytes, type ByteRange } from './byte-range';

/** The name of a write in progress (put): its object's path, a random tag, `.part`. */
const PART_NAME = /\.[0-9a-f]{12}\.part$/;

/** The default store: files under the data dir, written to a temp name and renamed into place. */
export class LocalDiskStore implements ObjectStore {
  readonly driver = 'local' as const;

  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    assertSafeKey(key);
    return join(this.root, key);
  }

  async put(key: string, body: Buffer | Readable, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 }); // object names hold key and upload ids: the app's user only
    const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temp, { mode: 0o600 }));
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  async get(key: string, wanted?: ByteRange): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    // Opened before anything is read: a delete racing this read (two completes of one upload)
    // then cannot cut the stream short, the open file keeps its bytes until it is closed.
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      const range = wanted ? selectBytes(wanted, info.size) : null;
      if (!range) return { body: handle.createReadStream(), size: info.size };
      return { body: handle.createReadStream({ start: range.start, end: range.end }), size: info.size, range };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async deleteMany(keys: string[]): Promise<void> {
    for (const key of keys) await this.delete(key);
  }

  /** Deletes the temp files of writes a killed process left (last changed before `before`); how many. */
  async deleteAbandonedParts(before: Date): Promise<number> {
    let entries;
    try {
      entries = await readdir(this.root, { recursive: true, withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    let deleted = 0;
    for (const entry of entries) {
      if (!entry.isFile() || !PART_NAME.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      const info = await stat(path).catch(() => undefined); // gone meanwhile: renamed into place, or removed
      if (!info || info.mtime >= before) continue;
      await rm(path, { force: true });
      deleted++;
    }
    return deleted;
  }
}
