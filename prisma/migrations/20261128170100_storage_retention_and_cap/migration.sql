-- Storage that expires and is capped: what each key holds now (uploads pending or verified, and
-- outputs, until deleted), a package's cap on it, and the records the retention sweep marks.
ALTER TABLE "api_keys" ADD COLUMN "stored_bytes" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "package_versions" ADD COLUMN "max_stored_bytes" BIGINT;
ALTER TABLE "uploads" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);

CREATE TABLE "stored_outputs" (
    "storage_key" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "size_bytes" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    CONSTRAINT "stored_outputs_pkey" PRIMARY KEY ("storage_key")
);

CREATE INDEX "stored_outputs_deleted_at_created_at_idx" ON "stored_outputs"("deleted_at", "created_at");
CREATE INDEX "stored_outputs_api_key_id_idx" ON "stored_outputs"("api_key_id");
CREATE INDEX "uploads_deleted_at_created_at_idx" ON "uploads"("deleted_at", "created_at");
ALTER TABLE "stored_outputs" ADD CONSTRAINT "stored_outputs_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Uploads already held count from the start (outputs stored before this migration are not tracked).
UPDATE "api_keys" AS k SET "stored_bytes" = s.total
  FROM (SELECT "api_key_id", sum("size_bytes") AS total FROM "uploads" WHERE "status" IN ('pending', 'verified') GROUP BY "api_key_id") AS s
 WHERE k."id" = s."api_key_id";
