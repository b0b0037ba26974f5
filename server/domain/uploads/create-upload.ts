import { randomBytes } from 'node:crypto';
import { getConfig } from '../../config';
import type { CreateUploadRequest, UploadView } from '../../contract/jobs-and-uploads';
import type { Prisma, PrismaClient } from '../../db/generated/client';
import { getObjectStore } from '../../storage/get-object-store';
import { signUploadUrl } from '../../storage/upload-urls';
import { ApiError } from '../errors';
import { INPUT_UPLOAD_PURPOSES, type UploadPurpose } from '../operations';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { toUploadView } from './upload-view';
import { uploadKeyFor } from './upload-keys';

// POST /v1/uploads (CONTRACT.md §5): a pending upload and where to send its bytes directly.

const PURPOSE_MIME_PREFIX = { image_input: 'image/', audio_input: 'audio/', video_input: 'video/' } as const;

/** The upload purposes some operation of the key's package takes as input. */
function usablePurposes(key: AuthenticatedKey): Set<UploadPurpose> {
  const ops = key.operations;
  return new Set<UploadPurpose>([
    ...(ops['images.generate']?.input_uploads ? INPUT_UPLOAD_PURPOSES['images.generate'] : []),
    ...(ops['videos.generate']?.input_uploads ? INPUT_UPLOAD_PURPOSES['videos.generate'] : []),
    ...(ops['audio.transcribe'] ? INPUT_UPLOAD_PURPOSES['audio.transcribe'] : []),
  ]);
}

/** Scope of POST /v1/uploads: the package sells an operation that takes an uploaded input. */
export const canCreateUploads = (key: AuthenticatedKey): boolean => usablePurposes(key).size > 0;

/**
 * Step 7 checks: the purpose fits the mime type and some operation of the package (422), the
 * size fits the package (413). An upload no operation of the key could take is refused up front
 * rather than accepted, stored and only refused when used.
 */
export function checkCreateUpload(key: AuthenticatedKey, body: CreateUploadRequest): CreateUploadRequest {
  const usable = usablePurposes(key);
  if (!usable.has(body.purpose)) {
    throw ApiError.validation([
      {
        path: 'purpose',
        code: 'not_allowed_by_package',
        message: `purpose: no operation of this key's package takes ${body.purpose} uploads (allowed: ${[...usable].join(', ')}).`,
      },
    ]);
  }
  if (!body.mime_type.startsWith(PURPOSE_MIME_PREFIX[body.purpose])) {
    throw ApiError.validation([
      {
        path: 'mime_type',
        code: 'mime_type_mismatch',
        message: `mime_type: ${body.mime_type} does not fit purpose ${body.purpose} (expected ${PURPOSE_MIME_PREFIX[body.purpose]}*).`,
      },
    ]);
  }
  if (body.size_bytes > key.maxUploadBytes) {
    throw new ApiError('payload_too_large', {
      message: `size_bytes ${body.size_bytes} exceeds this key's package limit of ${key.maxUploadBytes} bytes.`,
      details: { max_upload_bytes: key.maxUploadBytes },
    });
  }
  return body;
}

async function storageFull(db: Prisma.TransactionClient, key: AuthenticatedKey, sizeBytes: number): Promise<ApiError> {
  const row = await db.apiKey.findUnique({ where: { id: key.id }, select: { storedBytes: true } });
  const stored = Number(row?.storedBytes ?? 0);
  return new ApiError('payload_too_large', {
    message:
      `This key holds ${stored} bytes in storage; ${sizeBytes} more would exceed its package limit of ${key.maxStoredBytes} bytes. ` +
      'Uploads and outputs are deleted after their retention time; retry then.',
    details: { max_stored_bytes: key.maxStoredBytes, stored_bytes: stored },
  });
}

export const newUploadId = () => `upl_${randomBytes(18).toString('base64url')}`;

export async function createUpload(
  db: PrismaClient,
  key: AuthenticatedKey,
  body: CreateUploadRequest,
  origin: string,
): Promise<UploadView> {
  const id = newUploadId();
  const storageKey = uploadKeyFor(id);
  // One clock reading for both, so expires_at is exactly created_at + UPLOAD_TTL_SECONDS.
  const createdAt = new Date();
  const expiresAt = new Date(createdAt.getTime() + getConfig().UPLOAD_TTL_SECONDS * 1000);
  const store = getObjectStore();
  const direct = store.createDirectUpload
    ? await store.createDirectUpload(storageKey, { contentType: body.mime_type, sizeBytes: body.size_bytes, expiresAt })
    : { url: signUploadUrl(origin, id, expiresAt), method: 'PUT' as const, headers: { 'Content-Type': body.mime_type } };
  // The size counts against what the key holds from now until the upload expires or is deleted;
  // one conditional UPDATE (stored_bytes + size <= cap, said as stored_bytes <= cap - size), so
  // racing creates never take the key past its cap together.
  const upload = await db.$transaction(async (tx) => {
    const taken = await tx.apiKey.updateMany({
      where: { id: key.id, storedBytes: { lte: key.maxStoredBytes - body.size_bytes } },
      data: { storedBytes: { increment: body.size_bytes } },
    });
    if (taken.count === 0) throw await storageFull(tx, key, body.size_bytes);
    return tx.upload.create({
      data: {
        id,
        apiKeyId: key.id,
        purpose: body.purpose,
        filename: body.filename,
        mimeType: body.mime_type,
        sizeBytes: body.size_bytes,
        sha256: body.sha256,
        storageKey,
        createdAt,
        expiresAt,
      },
    });
  });
  return { ...toUploadView(upload), upload_url: direct.url, upload_method: direct.method, upload_headers: direct.headers };
}
