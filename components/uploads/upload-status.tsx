import { StatusBadge } from '../ui/badge';

/**
 * An upload's status; a verified one's bytes retention deleted, that (the API answers 404 for it). One never verified
 * kept no bytes to delete: its status (expired, failed) says what it is.
 */
export function UploadStatus({ upload }: { upload: { status: string; deleted_at: string | null } }) {
  return upload.deleted_at && upload.status === 'verified' ? (
    <StatusBadge status="deleted" label={`deleted (was ${upload.status})`} />
  ) : (
    <StatusBadge status={upload.status} />
  );
}
