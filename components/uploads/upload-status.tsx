import { StatusBadge } from '../ui/badge';

/** An upload's status; once retention deleted its bytes, that (the API answers 404 for it), with the status it had. */
export function UploadStatus({ upload }: { upload: { status: string; deleted_at: string | null } }) {
  return upload.deleted_at ? (
    <StatusBadge status="deleted" label={`deleted (was ${upload.status})`} />
  ) : (
    <StatusBadge status={upload.status} />
  );
}
