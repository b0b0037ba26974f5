import { join } from 'node:path';
import { getConfig } from '../config';
import { LocalDiskStore } from './local-disk-store';
import type { ObjectStore } from './object-store';
import { S3Store } from './s3-store';
import { VercelBlobStore } from './vercel-blob-store';

let store: ObjectStore | undefined;

/** The configured store: STORAGE_DRIVER, else Vercel Blob when its token is set, else local disk. */
export function getObjectStore(): ObjectStore {
  if (store) return store;
  const config = getConfig();
  const driver = config.STORAGE_DRIVER ?? (config.BLOB_READ_WRITE_TOKEN ? 'vercel-blob' : 'local');
  if (driver === 's3') {
    store = new S3Store({
      bucket: config.S3_BUCKET!, // required by the config schema for this driver
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      accessKeyId: config.S3_ACCESS_KEY_ID,
      secretAccessKey: config.S3_SECRET_ACCESS_KEY,
      forcePathStyle: config.S3_FORCE_PATH_STYLE === 'true',
    });
  } else if (driver === 'vercel-blob') {
    store = new VercelBlobStore(config.BLOB_READ_WRITE_TOKEN!);
  } else {
    store = new LocalDiskStore(join(config.dataDir, 'storage'));
  }
  return store;
}

export function setObjectStoreForTests(next: ObjectStore | undefined): void {
  store = next;
}
