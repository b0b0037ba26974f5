import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { assertSafeKey, type DirectUpload, type ObjectStore, type StoredObject } from './object-store';

// S3-compatible storage. Objects are written without any ACL (the bucket's private default);
// clients reach them only through this service's signed /files URLs or a presigned PUT.

const PART_BYTES = 8 * 1024 * 1024;

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
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3StoreOptions) {
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    });
  }

  async createDirectUpload(key: string, options: { contentType: string; sizeBytes: number; expiresAt: Date }): Promise<DirectUpload> {
    assertSafeKey(key);
    const expiresIn = Math.max(1, Math.floor((options.expiresAt.getTime() - Date.now()) / 1000));
    const command = new PutObjectCommand({
      Bucket: this.bucket, Key: key, ContentType: options.contentType, ContentLength: options.sizeBytes,
    });
    // Both headers stay signed, so the client cannot send another type or a larger body.
    const url = await getSignedUrl(this.client, command, {
      expiresIn: Math.min(expiresIn, 7 * 24 * 3600),
      signableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, method: 'PUT', headers: { 'Content-Type': options.contentType } };
  }

  async put(key: string, body: Buffer | Readable, contentType: string): Promise<void> {
    assertSafeKey(key);
    if (Buffer.isBuffer(body)) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }));
      return;
    }
    await this.putStream(key, body, contentType);
  }

  /** A stream of unknown length: one PUT when it fits a part, else a multipart upload (memory stays at one part). */
  private async putStream(key: string, body: Readable, contentType: string): Promise<void> {
    let uploadId: string | undefined;
    const parts: { ETag?: string; PartNumber: number }[] = [];
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      const chunk = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      if (!uploadId) {
        const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
        uploadId = created.UploadId;
      }
      const PartNumber = parts.length + 1;
      const result = await this.client.send(new UploadPartCommand({
        Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber, Body: chunk, ContentLength: chunk.length,
      }));
      parts.push({ ETag: result.ETag, PartNumber });
    };
    try {
      for await (const piece of body) {
        const buf = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
        pending.push(buf);
        pendingBytes += buf.length;
        if (pendingBytes >= PART_BYTES) await flush();
      }
      if (!uploadId) {
        const whole = Buffer.concat(pending, pendingBytes);
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: whole, ContentType: contentType, ContentLength: whole.length }));
        return;
      }
      if (pendingBytes > 0) await flush();
      await this.client.send(new CompleteMultipartUploadCommand({
        Bucket: this.bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts },
      }));
    } catch (error) {
      if (uploadId) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })).catch(() => {});
      }
      throw error;
    }
  }

  async get(key: string): Promise<StoredObject | null> {
    assertSafeKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!result.Body) return null;
      return { body: result.Body as Readable, size: Number(result.ContentLength ?? 0) };
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) {
        return null;
      }
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  destroy(): void {
    this.client.destroy();
  }
}
