-- The OpenAI-compatible surface (/openai/v1, docs/openai-compatible.md) beside /v1.
-- Each hold records the surface its call came through, and every usage event settled from it
-- names that surface, so the dashboard, the portal, the margin report and the metrics tell them
-- apart.
ALTER TABLE "unit_holds" ADD COLUMN "surface" TEXT NOT NULL DEFAULT 'v1';
ALTER TABLE "usage_events" ADD COLUMN "surface" TEXT NOT NULL DEFAULT 'v1';

-- A package version may require an Idempotency-Key on the OpenAI-compatible surface too.
ALTER TABLE "package_versions" ADD COLUMN "openai_require_idempotency_key" BOOLEAN NOT NULL DEFAULT false;

-- An SDK's retry sent without an Idempotency-Key finds the call it repeats by its fingerprint
-- (the hash of method, path and body) among the key's records of the last lease.
CREATE INDEX "idempotency_records_api_key_id_fingerprint_idx" ON "idempotency_records" ("api_key_id", "fingerprint");
