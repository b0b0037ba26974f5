import { retentionDeletedBytes } from '@/server/contract/dashboard/upload-retention';
import { StatusBadge } from '../ui/badge';

/** An upload's status, or that retention deleted its bytes (with the status it had). */
export function UploadStatus({ upload }: { upload: { status: string; deleted_at: string | null } }) {
  return retentionDeletedBytes(upload) ? (
    <StatusBadge status="deleted" label={`deleted (was ${upload.status})`} />
  ) : (
    <StatusBadge status={upload.status} />
  );
}
