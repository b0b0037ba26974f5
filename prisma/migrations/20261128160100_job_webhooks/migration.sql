-- Job webhooks (Standard Webhooks): a key's endpoint and signing secret, and one delivery row per
-- job event, retried until delivered or out of attempts.
ALTER TABLE "api_keys" ADD COLUMN "webhook_url" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "webhook_secret" TEXT;
ALTER TABLE "api_keys" ADD COLUMN "webhook_disabled_at" TIMESTAMPTZ(3);

CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "job_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status" INTEGER,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "claimed_until" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "webhook_deliveries_job_id_event_type_key" ON "webhook_deliveries"("job_id", "event_type");
CREATE INDEX "webhook_deliveries_api_key_id_created_at_idx" ON "webhook_deliveries"("api_key_id", "created_at");
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
