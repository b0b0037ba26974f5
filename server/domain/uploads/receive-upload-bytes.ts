import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { PrismaClient } from '../../db/generated/client';
import { getObjectStore } from '../../storage/get-object-store';
import { ApiError } from '../errors';
import { isKeyActive } from '../key-status';

// The bytes of a direct upload to this service (local store): streamed to storage, hashed and
// counted on the way, refused as soon as more than the declared size arrives. The body is opened
// only once the upload, its key and its declared length allow it: a client that waits for
// `100 Continue` is refused without being invited to send it.

export interface ReceivedBytes {
  upload_id: string;
  received_bytes: number;
  sha256: string;
}

const gone = () => new ApiError('not_found', { message: 'There is no pending upload at this URL.' });

export async function receiveUploadBytes(
  db: PrismaClient,
  uploadId: string,
  openBody: () => Readable,
  contentLength?: number,
): Promise<ReceivedBytes> {
  const upload = await db.upload.findUnique({
    where: { id: uploadId },
    include: { apiKey: { select: { status: true, expiresAt: true } } },
  });
  if (!upload || upload.status !== 'pending' || upload.expiresAt.getTime() <= Date.now()) throw gone();
  // Read with the upload, not from the key cache: a revoked (or expired) key's URL stops at once.
  const { apiKey } = upload;
  if (!isKeyActive(apiKey)) throw new ApiError('forbidden', { message: 'The API key this upload belongs to is no longer active.' });
  const tooLarge = () =>
    new ApiError('payload_too_large', {
      message: `The upload body is larger than the declared size_bytes (${upload.sizeBytes}).`,
    });
  if (contentLength !== undefined && contentLength > upload.sizeBytes) throw tooLarge();
  const body = openBody();

  const hash = createHash('sha256');
  let received = 0;
  // Pulled lazily by the store, so nothing flows (or fails) before the store is reading.
  async function* metered() {
    for await (const piece of body) {
      const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
      received += chunk.length;
      if (received > upload!.sizeBytes) throw tooLarge();
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await getObjectStore().put(upload.storageKey, Readable.from(metered(), { objectMode: false }), upload.mimeType);
  } catch (error) {
    body.destroy();
    throw error;
  }
  const sha256 = hash.digest('hex');
  const updated = await db.upload.updateMany({
    where: { id: uploadId, status: 'pending' },
    data: { receivedBytes: received, receivedSha256: sha256 },
  });
  if (updated.count === 0) {
    // Completed (its verified bytes are sealed under another key) or expired while these bytes
    // streamed in: they belong to nothing, so they are not kept.
    await getObjectStore()
      .delete(upload.storageKey)
      .catch(() => {});
    throw gone();
  }
  return { upload_id: uploadId, received_bytes: received, sha256 };
}
