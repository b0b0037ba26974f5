-- Refused /v1 requests (answers that reached no engine), counted in memory by each instance and
-- added here by one batched upsert every few seconds: one row per minute, key (NULL when the
-- request named no valid key), operation, status and error code.
CREATE TABLE "refused_requests" (
    "id" BIGSERIAL NOT NULL,
    "minute" TIMESTAMPTZ(3) NOT NULL,
    "api_key_id" UUID,
    "operation" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "refused_requests_pkey" PRIMARY KEY ("id")
);

-- NULLS NOT DISTINCT (PostgreSQL 15+): the requests without a key of one minute share one row.
CREATE UNIQUE INDEX "refused_requests_minute_api_key_id_operation_status_code_key"
    ON "refused_requests"("minute", "api_key_id", "operation", "status", "code") NULLS NOT DISTINCT;

CREATE INDEX "refused_requests_api_key_id_minute_idx" ON "refused_requests"("api_key_id", "minute");
