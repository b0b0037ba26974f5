-- CreateEnum
CREATE TYPE "KeyStatus" AS ENUM ('active', 'revoked');
CREATE TYPE "HoldStatus" AS ENUM ('held', 'captured', 'released');
CREATE TYPE "IdempotencyStatus" AS ENUM ('running', 'completed');
CREATE TYPE "UploadStatus" AS ENUM ('pending', 'verified', 'expired');
CREATE TYPE "UploadPurpose" AS ENUM ('image_input', 'video_input', 'audio_input');
CREATE TYPE "JobStatus" AS ENUM ('submitted', 'running', 'succeeded', 'failed');
CREATE TYPE "UsageOutcome" AS ENUM ('succeeded', 'failed');

-- CreateTable
CREATE TABLE "operators" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(3),
    "disabled_at" TIMESTAMPTZ(3),
    CONSTRAINT "operators_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "providers" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "base_url" TEXT NOT NULL,
    "api_key_env" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "providers_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "packages" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "latest_version" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "packages_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "package_versions" (
    "id" UUID NOT NULL,
    "package_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "definition_hash" TEXT NOT NULL,
    "quota_units" INTEGER NOT NULL,
    "requests_per_minute" INTEGER NOT NULL,
    "concurrency" INTEGER NOT NULL,
    "max_upload_bytes" INTEGER NOT NULL,
    "operations" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "package_versions_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "label" TEXT,
    "status" "KeyStatus" NOT NULL DEFAULT 'active',
    "package_version_id" UUID NOT NULL,
    "remaining_units" INTEGER NOT NULL,
    "in_flight" INTEGER NOT NULL DEFAULT 0,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
    -- Quota can never go below zero, whatever races for the last units.
    CONSTRAINT "api_keys_remaining_units_check" CHECK ("remaining_units" >= 0),
    CONSTRAINT "api_keys_in_flight_check" CHECK ("in_flight" >= 0)
);

CREATE TABLE "unit_holds" (
    "id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "units" INTEGER NOT NULL,
    "operation" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "status" "HoldStatus" NOT NULL DEFAULT 'held',
    "counts_in_flight" BOOLEAN NOT NULL DEFAULT true,
    "lease_until" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),
    CONSTRAINT "unit_holds_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "usage_events" (
    "id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "package_version_id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "engine" TEXT NOT NULL,
    "outcome" "UsageOutcome" NOT NULL,
    "units" INTEGER NOT NULL,
    "error_code" TEXT,
    "request_id" TEXT NOT NULL,
    "hold_id" UUID,
    "job_id" TEXT,
    "duration_ms" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "usage_events_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "status" "IdempotencyStatus" NOT NULL DEFAULT 'running',
    "locked_until" TIMESTAMPTZ(3) NOT NULL,
    "response_status" INTEGER,
    "response_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "uploads" (
    "id" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "purpose" "UploadPurpose" NOT NULL,
    "filename" TEXT NOT NULL,
    "mime_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "status" "UploadStatus" NOT NULL DEFAULT 'pending',
    "storage_key" TEXT NOT NULL,
    "received_bytes" INTEGER,
    "received_sha256" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "verified_at" TIMESTAMPTZ(3),
    CONSTRAINT "uploads_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "jobs" (
    "id" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "status" "JobStatus" NOT NULL DEFAULT 'submitted',
    "input" JSONB NOT NULL,
    "engine" TEXT NOT NULL,
    "units" INTEGER NOT NULL,
    "hold_id" UUID,
    "request_id" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "result_key" TEXT,
    "result_mime_type" TEXT,
    "error_code" TEXT,
    "error_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "actor_type" TEXT NOT NULL,
    "actor_id" TEXT,
    "actor_label" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT,
    "before" JSONB,
    "after" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,
    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "operators_email_key" ON "operators"("email");
CREATE UNIQUE INDEX "providers_name_key" ON "providers"("name");
CREATE UNIQUE INDEX "packages_slug_key" ON "packages"("slug");
CREATE UNIQUE INDEX "package_versions_package_id_version_key" ON "package_versions"("package_id", "version");
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");
CREATE INDEX "api_keys_package_version_id_idx" ON "api_keys"("package_version_id");
CREATE INDEX "api_keys_created_at_idx" ON "api_keys"("created_at");
CREATE INDEX "unit_holds_status_lease_until_idx" ON "unit_holds"("status", "lease_until");
CREATE INDEX "unit_holds_api_key_id_idx" ON "unit_holds"("api_key_id");
CREATE UNIQUE INDEX "usage_events_hold_id_key" ON "usage_events"("hold_id");
CREATE INDEX "usage_events_api_key_id_created_at_idx" ON "usage_events"("api_key_id", "created_at");
CREATE INDEX "usage_events_created_at_idx" ON "usage_events"("created_at");
CREATE UNIQUE INDEX "idempotency_records_api_key_id_method_path_key_key" ON "idempotency_records"("api_key_id", "method", "path", "key");
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");
CREATE INDEX "uploads_api_key_id_created_at_idx" ON "uploads"("api_key_id", "created_at");
CREATE INDEX "uploads_status_expires_at_idx" ON "uploads"("status", "expires_at");
CREATE UNIQUE INDEX "jobs_hold_id_key" ON "jobs"("hold_id");
CREATE INDEX "jobs_api_key_id_created_at_idx" ON "jobs"("api_key_id", "created_at");
CREATE INDEX "jobs_status_updated_at_idx" ON "jobs"("status", "updated_at");
CREATE INDEX "audit_log_created_at_idx" ON "audit_log"("created_at");
CREATE INDEX "audit_log_target_type_target_id_idx" ON "audit_log"("target_type", "target_id");

-- AddForeignKey
ALTER TABLE "package_versions" ADD CONSTRAINT "package_versions_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "packages"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_package_version_id_fkey" FOREIGN KEY ("package_version_id") REFERENCES "package_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "unit_holds" ADD CONSTRAINT "unit_holds_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "uploads" ADD CONSTRAINT "uploads_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- The audit log is append-only: history cannot be rewritten, even by the app.
CREATE FUNCTION "audit_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER "audit_log_no_update_or_delete" BEFORE UPDATE OR DELETE ON "audit_log"
  FOR EACH ROW EXECUTE FUNCTION "audit_log_append_only"();
