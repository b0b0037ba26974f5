import type { PrismaClient, Upload } from '../../db/generated/client';
import { ApiError } from '../errors';
import { clampLimit, iso, keysetPageQuery, toPage, WITH_KEY } from '../pagination';

import { UPLOAD_ID_PATTERN, UPLOAD_STATUSES } from '../../contract/values';

export { UPLOAD_STATUSES };
export type UploadStatusFilter = (typeof UPLOAD_STATUSES)[number];

type UploadWithKey = Upload & { apiKey: { prefix: string; label: string | null } };

export function toUploadView(upload: UploadWithKey) {
  return {
    id: upload.id,
    status: upload.status,
    purpose: upload.purpose,
    filename: upload.filename,
    mime_type: upload.mimeType,
    size_bytes: upload.sizeBytes,
    received_bytes: upload.receivedBytes,
    sha256: upload.sha256,
    received_sha256: upload.receivedSha256,
    api_key_id: upload.apiKeyId,
    key_prefix: upload.apiKey.prefix,
    created_at: upload.createdAt.toISOString(),
    expires_at: upload.expiresAt.toISOString(),
    verified_at: iso(upload.verifiedAt),
    /** When retention deleted its bytes (UPLOAD_RETENTION_HOURS): the API answers 404 for it since. */
    deleted_at: iso(upload.deletedAt),
  };
}

export type UploadView = ReturnType<typeof toUploadView>;

export async function listUploads(
  db: PrismaClient,
  input: { status?: UploadStatusFilter; apiKeyId?: string; cursor?: string; limit?: number } = {},
): Promise<{ items: UploadView[]; nextCursor: string | null; prevCursor: string | null }> {
  const limit = clampLimit(input.limit);
  const filter = { ...(input.status ? { status: input.status } : {}), ...(input.apiKeyId ? { apiKeyId: input.apiKeyId } : {}) };
  const rows = await db.upload.findMany(keysetPageQuery(filter, input.cursor, limit, WITH_KEY, isUploadId));
  return toPage(rows, limit, toUploadView, input.cursor, isUploadId);
}

export async function getUpload(db: PrismaClient, id: string): Promise<UploadView> {
  const upload = await db.upload.findUnique({ where: { id }, include: WITH_KEY });
  if (!upload) throw new ApiError('not_found', { message: `No upload with id "${id}".` });
  return toUploadView(upload);
}

const isUploadId = (id: string) => UPLOAD_ID_PATTERN.test(id);
