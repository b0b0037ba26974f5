/**
 * Whether retention deleted an upload's bytes: a verified upload past UPLOAD_RETENTION_HOURS (the API answers 404 for
 * it since). One never verified kept no bytes to delete; its status (expired, failed) says what it is.
 */
export function retentionDeletedBytes(upload: { status: string; deleted_at: string | null }): boolean {
  return upload.deleted_at !== null && upload.status === 'verified';
}
