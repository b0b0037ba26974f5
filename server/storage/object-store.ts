import type { Readable } from 'node:stream';
import type { ByteRange, SelectedBytes } from './byte-range';

// Where uploaded inputs and generated outputs live. Objects are private: clients reach
// them only through short-lived URLs signed by this service (see signed-urls.ts).

export interface StoredObject {
  body: Readable;
  /** The whole object's size. */
  size: number;
  /** Set when `body` holds only these bytes: the range asked for, which the object could satisfy. */
  range?: SelectedBytes;
}

export interface DirectUpload {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
}

export interface ObjectStore {
  readonly driver: 'local' | 'vercel-blob' | 's3';
  /**
   * Where a client may send an object's bytes itself, when the store takes direct uploads
   * (S3 presigned PUT, Vercel Blob client token). Undefined: the service's own signed PUT route.
   */
  createDirectUpload?(key: string, options: { contentType: string; sizeBytes: number; expiresAt: Date }): Promise<DirectUpload>;
  put(key: string, body: Buffer | Readable, contentType: string): Promise<void>;
  /** null when there is no such object. With `range`, only its bytes, when the object has them; else the whole object. */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  delete(key: string): Promise<void>;
  /** Deletes up to 1,000 objects in as few calls as the store allows; keys with no object are no error. */
  deleteMany(keys: string[]): Promise<void>;
  /** Where a write leaves a file of its own until it ends (local disk): deletes those a killed process left. */
  deleteAbandonedParts?(before: Date): Promise<number>;
}

const SAFE_KEY = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9/_.-]{0,400}$/;

/** Object keys are made by this service; anything else is refused before it reaches a store. */
export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key)) throw new Error(`unsafe object key: ${JSON.stringify(key)}`);
}
