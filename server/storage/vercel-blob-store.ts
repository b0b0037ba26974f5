import { Readable } from 'node:stream';
import { getConfig } from '../config';
import { environmentVariable } from '../config/environment';
import { assertSafeKey, type DirectUpload, type ObjectStore, type StoredObject } from './object-store';
import { rangeHeaderOf, selectBytes, type ByteRange } from './byte-range';

// Vercel Blob with private access. Reads are authenticated fetches of the blob's own URL;
// direct uploads use a client token bound to one pathname, one content type and the declared size.

const DEFAULT_API_URL = 'https://vercel.com/api/blob';

// @vercel/blob (and its client half) is loaded when the Vercel Blob driver is first used, not by
// every process that imports the object stores and stores on local disk.
type BlobSdk = typeof import('@vercel/blob');
type BlobClientSdk = typeof import('@vercel/blob/client');
let sdkLoading: Promise<{ blob: BlobSdk; client: BlobClientSdk }> | undefined;

function loadSdk(): Promise<{ blob: BlobSdk; client: BlobClientSdk }> {
  sdkLoading ??= Promise.all([import('@vercel/blob'), import('@vercel/blob/client')]).then(([blob, client]) => ({ blob, client }));
  return sdkLoading;
}
const BLOB_API_VERSION = '12'; // what @vercel/blob 2.8 sends; the PUT API refuses requests without it

export function blobApiUrl(): string {
  return getConfig().VERCEL_BLOB_API_URL || environmentVariable('NEXT_PUBLIC_VERCEL_BLOB_API_URL') || DEFAULT_API_URL;
}

export class VercelBlobStore implements ObjectStore {
  readonly driver = 'vercel-blob' as const;

  constructor(private readonly token: string) {}

  async createDirectUpload(key: string, options: { contentType: string; sizeBytes: number; expiresAt: Date }): Promise<DirectUpload> {
    assertSafeKey(key);
    const { generateClientTokenFromReadWriteToken } = (await loadSdk()).client;
    const clientToken = await generateClientTokenFromReadWriteToken({
      token: this.token,
      pathname: key,
      allowedContentTypes: [options.contentType],
      maximumSizeInBytes: options.sizeBytes,
      validUntil: options.expiresAt.getTime(),
      addRandomSuffix: false,
      allowOverwrite: true, // a failed verification may be followed by a second PUT of the right bytes
    });
    return {
      url: `${blobApiUrl()}/?${new URLSearchParams({ pathname: key })}`,
      method: 'PUT',
      headers: {
        'Content-Type': options.contentType,
        authorization: `Bearer ${clientToken}`,
        'x-api-version': BLOB_API_VERSION,
        'x-vercel-blob-access': 'private',
        'x-content-type': options.contentType,
        // No x-add-random-suffix / x-allow-overwrite: with a client token those live in the token,
        // and @vercel/blob's own client put refuses to send them.
      },
    };
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    assertSafeKey(key);
    const { put } = (await loadSdk()).blob;
    await put(key, body, { access: 'private', token: this.token, contentType, addRandomSuffix: false, allowOverwrite: true });
  }

  async get(key: string, wanted?: ByteRange): Promise<StoredObject | null> {
    assertSafeKey(key);
    const { head, BlobNotFoundError } = (await loadSdk()).blob;
    let meta: Awaited<ReturnType<BlobSdk['head']>>;
    try {
      meta = await head(key, { token: this.token });
    } catch (error) {
      if (error instanceof BlobNotFoundError) return null;
      throw error;
    }
    // cache=0 reads from the origin (what the library's get does with useCache: false): the CDN
    // may serve an overwritten private blob's old bytes for up to 60 s, and an upload's key is
    // overwritten when a client PUTs again after a failed verification.
    const url = new URL(meta.url);
    url.searchParams.set('cache', '0');
    const range = wanted ? selectBytes(wanted, meta.size) : null;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      ...(range ? { range: rangeHeaderOf(range) } : {}),
    };
    const response = await fetch(url, { headers, cache: 'no-store' });
    if (response.status === 404) return null;
    if (!response.ok || !response.body) throw new Error(`blob read failed with HTTP ${response.status}`);
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream);
    // A 200 to a ranged read is the whole object (the range ignored): served as such.
    return response.status === 206 && range ? { body, size: meta.size, range } : { body, size: meta.size };
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    const { del } = (await loadSdk()).blob;
    await del(key, { token: this.token });
  }

  /** One call of the Blob API's delete, which takes a list of pathnames. */
  async deleteMany(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    keys.forEach(assertSafeKey);
    const { del } = (await loadSdk()).blob;
    await del(keys, { token: this.token });
  }
}
