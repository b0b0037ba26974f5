-- Engine fallbacks: a usage event names the engine that answered (`engine`) and every engine
-- called for it in order (`engines_tried`); a video job keeps its package's engine list.
ALTER TABLE "usage_events" ADD COLUMN "engines_tried" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
ALTER TABLE "jobs" ADD COLUMN "engines" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- The circuit breaker, shared by every instance: a provider that failed
-- PROVIDER_CIRCUIT_FAILURES times in a row is skipped until `open_until`.
CREATE TABLE "provider_circuits" (
    "provider" TEXT NOT NULL,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "open_until" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "provider_circuits_pkey" PRIMARY KEY ("provider")
);

-- A provider's API key set by an operator (CLI or dashboard): AES-256-GCM under
-- PROVIDER_KEYS_SECRET, the provider's name as associated data. Kept by name, not by provider
-- row, so re-applying a packages file never loses it.
CREATE TABLE "provider_keys" (
    "provider" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "updated_by" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "provider_keys_pkey" PRIMARY KEY ("provider")
);
