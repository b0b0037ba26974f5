-- The upload a call consumed (images.generate, audio.transcribe, videos.generate with an
-- input_upload_id), written by the same statement that writes the usage event, so an upload's
-- page lists every call that used it. No foreign key: usage events outlive what they name.
ALTER TABLE "usage_events" ADD COLUMN "input_upload_id" TEXT;

CREATE INDEX "usage_events_input_upload_id_created_at_idx" ON "usage_events"("input_upload_id", "created_at");

-- Video jobs settled before this column existed name their upload in their input.
UPDATE "usage_events" AS u
SET "input_upload_id" = j."input"->'inputUpload'->>'uploadId'
FROM "jobs" AS j
WHERE u."job_id" = j."id" AND j."input"->'inputUpload'->>'uploadId' IS NOT NULL;
