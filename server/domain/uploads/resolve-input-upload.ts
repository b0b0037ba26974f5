import { buffer } from 'node:stream/consumers';
import type { PrismaClient } from '../../db/generated/client';
import { getObjectStore } from '../../storage/get-object-store';
import { ApiError, type ValidationIssue } from '../errors';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import type { UploadPurpose } from '../operations';

export interface InputUpload {
  id: string;
  storageKey: string;
  mimeType: string;
  filename: string;
  sizeBytes: number;
}

/** Where a request's step-7 problems are gathered, to be answered together (PackageSettingsCheck). */
export interface IssueList {
  refuse(issue: ValidationIssue): void;
  /** Throws the 422 of the problems gathered, if any. */
  done(): void;
}

/** Refuses at once: the request's one problem. */
const refusing: IssueList = {
  refuse(issue) {
    throw ApiError.validation([issue]);
  },
  done() {},
};

/**
 * A referenced upload, checked at step 7 (CONTRACT.md §3), after the package's settings: not
 * found or another key's is 404 (or the 422 of the problems `issues` has already); not verified,
 * the wrong purpose or expired is an issue on `path`, thrown as a 422, or added to `issues` beside
 * the settings' (then there is no upload to return).
 */
export async function resolveInputUpload(
  db: PrismaClient,
  key: AuthenticatedKey,
  uploadId: string,
  purposes: readonly UploadPurpose[],
): Promise<InputUpload>;
export async function resolveInputUpload(
  db: PrismaClient,
  key: AuthenticatedKey,
  uploadId: string,
  purposes: readonly UploadPurpose[],
  issues: IssueList,
): Promise<InputUpload | undefined>;
export async function resolveInputUpload(
  db: PrismaClient,
  key: AuthenticatedKey,
  uploadId: string,
  purposes: readonly UploadPurpose[],
  issues = refusing,
): Promise<InputUpload | undefined> {
  const path = 'input_upload_id';
  const upload = await db.upload.findUnique({ where: { id: uploadId } });
  // Deleted by the retention sweep (UPLOAD_RETENTION_HOURS): gone, as if it never was.
  if (!upload || upload.apiKeyId !== key.id || upload.deletedAt) {
    issues.done();
    throw new ApiError('not_found', { message: 'The referenced upload was not found.' });
  }
  const issue = (code: string, message: string) => void issues.refuse({ path, code, message: `${path}: ${message}` });
  if (upload.status === 'expired' || (upload.status === 'pending' && upload.expiresAt.getTime() <= Date.now())) {
    return issue('upload_expired', 'the upload has expired; create a new one.');
  }
  if (upload.status !== 'verified') return issue('upload_not_verified', 'the upload is not verified yet; complete it first.');
  if (!purposes.includes(upload.purpose)) {
    return issue('upload_wrong_purpose', `the upload's purpose is ${upload.purpose}; this field takes ${purposes.join(' or ')}.`);
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
