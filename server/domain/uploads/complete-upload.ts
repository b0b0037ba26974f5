import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { UPLOAD_ID_PATTERN } from '../../contract/values';
import type { UploadView } from '../../contract/jobs-and-uploads';
import type { PrismaClient, Upload } from '../../db/generated/client';
import { Mp3StructureProbe } from '../../providers/local/mp3-structure';
import { mimeMatchesDeclared, sniffMime, SNIFF_BYTES } from '../../providers/local/sniff-mime';
import { getObjectStore } from '../../storage/get-object-store';
import { ApiError } from '../errors';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { newSealedKey } from './upload-keys';
import { toUploadView } from './upload-view';

// POST /v1/uploads/{id}/complete (CONTRACT.md §5): the stored bytes are read back and must
// match the declared size, the SHA-256 (declared and sent), the mime type's magic bytes and, for
// MP3, the frames after the ID3 tag (mp3-structure.ts).
// Any mismatch is 422 and the upload stays pending, so the client may PUT again.

const mismatch = (path: string, code: string, message: string) => ApiError.validation([{ path, code, message }]);

/** Step 7: the caller's own upload (else 404), not expired (else 422). */
export async function findCompletableUpload(db: PrismaClient, key: AuthenticatedKey, uploadId: string): Promise<Upload> {
  const upload = UPLOAD_ID_PATTERN.test(uploadId) ? await db.upload.findUnique({ where: { id: uploadId } }) : null;
  if (!upload || upload.apiKeyId !== key.id || upload.deletedAt) throw new ApiError('not_found', { message: 'The upload was not found.' });
  if (upload.status === 'expired' || (upload.status === 'pending' && upload.expiresAt.getTime() <= Date.now())) {
    throw mismatch('upload_id', 'upload_expired', 'The upload has expired; create a new one.');
  }
  return upload;
}

interface StoredFacts {
  size: number;
  sha256: string;
  head: Buffer;
  /** False when the container's structure is wrong where it can be checked cheaply (MP3: frames after the ID3 tag). */
  structureOk: boolean;
}

/**
 * Reads the stored object once: size, SHA-256 and leading bytes, and in the same pass writes
 * the bytes to `copyTo`, a key no client can write to, so what was verified cannot be replaced.
 */
async function readBack(storageKey: string, mimeType: string, copyTo: string): Promise<StoredFacts | null> {
  const store = getObjectStore();
  const object = await store.get(storageKey);
  if (!object) return null;
  const hash = createHash('sha256');
  const headParts: Buffer[] = [];
  let headBytes = 0;
  let size = 0;
  const mp3 = mimeMatchesDeclared(mimeType, 'audio/mpeg') ? new Mp3StructureProbe() : undefined;
  async function* measured() {
    for await (const chunk of object!.body) {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      size += buf.length;
      hash.update(buf);
      mp3?.push(buf);
      if (headBytes < SNIFF_BYTES) {
        const part = buf.subarray(0, SNIFF_BYTES - headBytes);
        headParts.push(part);
        headBytes += part.length;
      }
      yield buf;
    }
  }
  await store.put(copyTo, Readable.from(measured()), mimeType);
  return { size, sha256: hash.digest('hex'), head: Buffer.concat(headParts), structureOk: mp3?.valid() ?? true };
}

export async function completeUpload(db: PrismaClient, upload: Upload, sha256: string): Promise<UploadView> {
  // Checked first, so a wrong digest is 422 whether or not the upload is already verified.
  if (sha256 !== upload.sha256) {
    throw mismatch('sha256', 'sha256_mismatch', 'sha256 differs from the digest declared when the upload was created.');
  }
  if (upload.status === 'verified') return toUploadView(upload);
  // A PUT may still be streaming to the upload's key while this runs (and S3 or Vercel Blob
  // accept PUTs there until the URL expires), so the bytes verified here are sealed, in the
  // same pass, under a key no client can write to: a later PUT cannot replace them.
  const store = getObjectStore();
  // One sealed copy per attempt: of two completes racing, the one that loses the update below
  // deletes only its own copy, never the winner's.
  const sealedKey = newSealedKey(upload.storageKey);
  const stored = await readBack(upload.storageKey, upload.mimeType, sealedKey);
  if (!stored) {
    // A complete racing this one may have verified the upload and moved its bytes meanwhile.
    const current = await db.upload.findUniqueOrThrow({ where: { id: upload.id } });
    if (current.status === 'verified') return toUploadView(current);
    throw mismatch('upload_id', 'not_uploaded', 'No bytes have been uploaded yet; PUT them to upload_url first.');
  }
  const discardSealed = () => store.delete(sealedKey).catch(() => {});
  if (stored.size !== upload.sizeBytes) {
    await discardSealed();
    throw mismatch('size_bytes', 'size_mismatch', `The stored object has ${stored.size} bytes; ${upload.sizeBytes} were declared.`);
  }
  if (stored.sha256 !== upload.sha256) {
    await discardSealed();
    throw mismatch('sha256', 'sha256_mismatch', 'The SHA-256 of the stored bytes differs from the declared digest.');
  }
  const sniffed = await sniffMime(stored.head);
  if (!mimeMatchesDeclared(upload.mimeType, sniffed)) {
    await discardSealed();
    throw mismatch(
      'mime_type',
      'content_mismatch',
      `The content is ${sniffed ?? 'not a recognised format'}, not the declared ${upload.mimeType}.`,
    );
  }
  if (!stored.structureOk) {
    await discardSealed();
    throw mismatch('mime_type', 'content_mismatch', `The content is not ${upload.mimeType}: no MPEG audio frames follow its ID3 tag.`);
  }
  const now = new Date();
  const updated = await db.upload.updateMany({
    where: { id: upload.id, status: 'pending', expiresAt: { gt: now } },
    data: {
      status: 'verified',
      verifiedAt: now,
      receivedBytes: stored.size,
      receivedSha256: stored.sha256,
      storageKey: sealedKey,
    },
  });
  const current = await db.upload.findUniqueOrThrow({ where: { id: upload.id } });
  if (updated.count === 0) {
    await discardSealed();
    if (current.status !== 'verified') throw mismatch('upload_id', 'upload_expired', 'The upload has expired; create a new one.');
  } else {
    await store.delete(upload.storageKey).catch(() => {}); // the unsealed copy is no longer referenced
  }
  return toUploadView(current);
}
