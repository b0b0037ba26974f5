import type { S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { assertSafeKey, type DirectUpload, type ObjectStore, type StoredObject } from './object-store';
import { parseContentRange, rangeHeaderOf, selectBytes, type ByteRange } from './byte-range';

// S3-compatible storage. Objects are written without any ACL (the bucket's private default);
// clients reach them only through this service's signed /files URLs or a presigned PUT.

const PART_BYTES = 8 * 1024 * 1024;

// The AWS SDK (~21 MB resident) is loaded when the S3 driver is first used, not by every
// server that stores on local disk.
type S3Sdk = typeof import('@aws-sdk/client-s3');
type Presign = (typeof import('@aws-sdk/s3-request-presigner'))['getSignedUrl'];
let sdkLoading: Promise<{ s3: S3Sdk; presign: Presign }> | undefined;

function loadSdk(): Promise<{ s3: S3Sdk; presign: Presign }> {
  sdkLoading ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')]).then(([s3, presigner]) => ({
    s3,
    presign: presigner.getSignedUrl,
  }));
  return sdkLoading;
}

interface Connection {
  client: S3Client;
  s3: S3Sdk;
  presign: Presign;
}

export interface S3StoreOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle?: boolean;
}

export class S3Store implements ObjectStore {
  readonly driver = 's3' as const;
  private connection: Promise<Connection> | undefined;

  constructor(private readonly options: S3StoreOptions) {}

  private get bucket(): string {
    return this.options.bucket;
  }

  private connect(): Promise<Connection> {
    this.connection ??= loadSdk().then(({ s3, presign }) => {
      const { region, endpoint, forcePathStyle, accessKeyId, secretAccessKey } = this.options;
      const client = new s3.S3Client({
        region,
        endpoint,
        forcePathStyle,
        credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
        // Checksums only where S3 requires them: by default the SDK signs a CRC32 of the body into
        // presigned PUT URLs, which at signing time is empty, so S3 refused every client upload.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { s3, presign, client };
    });
    return this.connection;
  }

  async createDirectUpload(key: string, options: { contentType: string; sizeBytes: number; expiresAt: Date }): Promise<DirectUpload> {
    assertSafeKey(key);
    const { client, s3, presign } = await this.connect();
    const expiresIn = Math.max(1, Math.ceil((options.expiresAt.getTime() - Date.now()) / 1000)); // not before expires_at
    const command = new s3.PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ContentType: options.contentType,
      ContentLength: options.sizeBytes,
    });
    // Both headers stay signed, so the client cannot send another type or a larger body.
    const url = await presign(client, command, {
      expiresIn: Math.min(expiresIn, 7 * 24 * 3600),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, method: 'PUT', headers: { 'Content-Type': options.contentType } };
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    assertSafeKey(key);
    if (Buffer.isBuffer(body)) {
      const { client, s3 } = await this.connect();
      await client.send(
        new s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }),
      );
      return;
    }
    await this.putStream(key, body, contentType);
  }

  /**
   * A stream of unknown length: one PUT when it fits a part, else a multipart upload of equal
   * parts (R2 refuses unequal ones; S3 allows them). Memory stays at two parts.
   */
  private async putStream(key: string, body: Readable, contentType: string): Promise<void> {
    const { client, s3 } = await this.connect();
    let uploadId: string | undefined;
    const parts: { ETag?: string; PartNumber: number }[] = [];
    const uploadPart = async (chunk: Buffer) => {
      if (!uploadId) {
        const created = await client.send(new s3.CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const result = await client.send(
        new s3.UploadPartCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber,
          Body: chunk,
          ContentLength: chunk.length,
        }),
      );
      parts.push({ ETag: result.ETag, PartNumber });
    };
    try {
      let held: Buffer | undefined; // one part behind: a body of a single part is a plain PUT
      for await (const part of equalParts(body, PART_BYTES)) {
        if (held) await uploadPart(held);
        held = part;
      }
      if (!uploadId) {
        const whole = held ?? Buffer.alloc(0);
        await client.send(
          new s3.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: whole, ContentType: contentType, ContentLength: whole.length }),
        );
        return;
      }
      await uploadPart(held!);
      await client.send(
        new s3.CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      if (uploadId) {
        await client.send(new s3.AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })).catch(() => {});
      }
      throw error;
    }
  }

  async get(key: string, wanted?: ByteRange): Promise<StoredObject | null> {
    assertSafeKey(key);
    const { client, s3 } = await this.connect();
    try {
      // A range is read as first-last from the object's size: not every S3-compatible store reads a suffix (bytes=-N).
      const head = wanted ? await client.send(new s3.HeadObjectCommand({ Bucket: this.bucket, Key: key })) : undefined;
      const range = wanted ? selectBytes(wanted, Number(head?.ContentLength ?? 0)) : null;
      const Range = range ? rangeHeaderOf(range) : undefined;
      const result = await client.send(new s3.GetObjectCommand({ Bucket: this.bucket, Key: key, Range }));
      if (!result.Body) return null;
      const served = range ? parseContentRange(result.ContentRange) : null;
      if (!served) return { body: result.Body as Readable, size: Number(result.ContentLength ?? 0) };
      return { body: result.Body as Readable, size: served.size, range: { start: served.start, end: served.end } };
    } catch (error) {
      if (
        error instanceof s3.NoSuchKey ||
        ['NoSuchKey', 'NotFound'].includes((error as { name?: string }).name ?? '') ||
        (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404
      ) {
        return null;
      }
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    const { client, s3 } = await this.connect();
    await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** One DeleteObjects call (up to 1,000 keys); a key the bucket refused to delete fails the batch. */
  async deleteMany(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    keys.forEach(assertSafeKey);
    const { client, s3 } = await this.connect();
    const result = await client.send(
      new s3.DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
    );
    const failed = result.Errors ?? [];
    if (failed.length > 0) throw new Error(`S3 refused to delete ${failed.length} object(s): ${failed[0]!.Code ?? 'error'}`);
  }

  destroy(): void {
    void this.connection?.then(({ client }) => client.destroy());
  }
}

/** The stream cut into parts of exactly `size` bytes; the last part holds the rest. */
export async function* equalParts(body: AsyncIterable<Buffer | Uint8Array | string>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of body) {
    let buf = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
    while (pendingBytes + buf.length >= size) {
      const take = size - pendingBytes;
      pending.push(buf.subarray(0, take));
      yield Buffer.concat(pending, size);
      pending = [];
      pendingBytes = 0;
      buf = buf.subarray(take);
    }
    if (buf.length > 0) {
      pending.push(buf);
      pendingBytes += buf.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}
