import { join } from 'node:path';
import { getConfig } from '../config';
import { LocalDiskStore } from './local-disk-store';
import type { ObjectStore } from './object-store';

let store: ObjectStore | undefined;

/** The configured store: STORAGE_DRIVER, else Vercel Blob when its token is set, else local disk. */
export function getObjectStore(): ObjectStore {
  if (store) return store;
  const config = getConfig();
  const driver = config.STORAGE_DRIVER ?? (config.BLOB_READ_WRITE_TOKEN ? 'vercel-blob' : 'local');
  if (driver !== 'local') throw new Error(`storage driver "${driver}" is not available in this build`);
  store = new LocalDiskStore(join(config.dataDir, 'storage'));
  return store;
}

export function setObjectStoreForTests(next: ObjectStore | undefined): void {
  store = next;
}
