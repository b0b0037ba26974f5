import { buffer } from 'node:stream/consumers';
import type { PrismaClient } from '../../db/generated/client';
import { getObjectStore } from '../../storage/get-object-store';
import { ApiError } from '../errors';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import type { UploadPurpose } from '../operations';

export interface InputUpload {
  id: string;
  storageKey: string;
  mimeType: string;
  filename: string;
  sizeBytes: number;
}

const invalid = (path: string, code: string, message: string) => ApiError.validation([{ path, code, message }]);

/**
 * A referenced upload, checked at step 7 (CONTRACT.md §3): not found or another key's is 404;
 * not verified, the wrong purpose or expired is 422 on `path`.
 */
export async function resolveInputUpload(
  db: PrismaClient,
  key: AuthenticatedKey,
  uploadId: string,
  purposes: readonly UploadPurpose[],
  path = 'input_upload_id',
): Promise<InputUpload> {
  const upload = await db.upload.findUnique({ where: { id: uploadId } });
  // Deleted by the retention sweep (UPLOAD_RETENTION_HOURS): gone, as if it never was.
  if (!upload || upload.apiKeyId !== key.id || upload.deletedAt) {
    throw new ApiError('not_found', { message: 'The referenced upload was not found.' });
  }
  if (upload.status === 'expired' || (upload.status === 'pending' && upload.expiresAt.getTime() <= Date.now())) {
    throw invalid(path, 'upload_expired', `${path}: the upload has expired; create a new one.`);
  }
  if (upload.status !== 'verified') {
    throw invalid(path, 'upload_not_verified', `${path}: the upload is not verified yet; complete it first.`);
  }
  if (!purposes.includes(upload.purpose)) {
    throw invalid(
      path,
      'upload_wrong_purpose',
      `${path}: the upload's purpose is ${upload.purpose}; this field takes ${purposes.join(' or ')}.`,
    );
  }
  return {
    id: upload.id,
    storageKey: upload.storageKey,
    mimeType: upload.mimeType,
    filename: upload.filename,
    sizeBytes: upload.sizeBytes,
  };
}

/** The bytes of a stored object, for engines that take a whole input in memory. */
export async function loadUploadBytes(storageKey: string): Promise<Buffer> {
  const object = await getObjectStore().get(storageKey);
  if (!object) throw new Error(`stored upload ${storageKey} is missing`);
  return buffer(object.body);
}
