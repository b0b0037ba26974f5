-- S3 and Vercel Blob accept PUTs at an upload's URL until it expires, even after the upload was
-- verified (its bytes sealed under another key) or expired (its bytes deleted). Once the URL can
-- no longer be used, a sweep deletes whatever such a late PUT left there, and notes it here.
ALTER TABLE "uploads" ADD COLUMN "upload_key_cleared_at" TIMESTAMPTZ(3);

CREATE INDEX "uploads_upload_key_cleared_at_expires_at_idx" ON "uploads"("upload_key_cleared_at", "expires_at");
