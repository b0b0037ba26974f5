import type { UploadView } from '../../contract/jobs-and-uploads';
import type { Upload } from '../../db/generated/client';

/** The Upload resource of CONTRACT.md §5 (without the direct-upload fields of the 201). */
export function toUploadView(upload: Upload): UploadView {
  return {
    upload_id: upload.id,
    object: 'upload',
    status: upload.status,
    purpose: upload.purpose,
    filename: upload.filename,
    mime_type: upload.mimeType as UploadView['mime_type'],
    size_bytes: upload.sizeBytes,
    sha256: upload.sha256,
    created_at: upload.createdAt.toISOString(),
    expires_at: upload.expiresAt.toISOString(),
    verified_at: upload.verifiedAt ? upload.verifiedAt.toISOString() : null,
  };
}
