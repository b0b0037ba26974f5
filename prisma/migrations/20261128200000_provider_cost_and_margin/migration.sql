-- What each call consumed at its provider and what that cost, what a unit sells for, and each
-- key's provider cost of the current UTC day (for a package's max_provider_cost_per_day).
ALTER TABLE "usage_events"
  ADD COLUMN "input_tokens" INTEGER,
  ADD COLUMN "output_tokens" INTEGER,
  ADD COLUMN "cached_input_tokens" INTEGER,
  ADD COLUMN "characters" INTEGER,
  ADD COLUMN "audio_seconds" DECIMAL(12,3),
  ADD COLUMN "images" INTEGER,
  ADD COLUMN "image_size" TEXT,
  ADD COLUMN "video_seconds" DECIMAL(12,3),
  ADD COLUMN "provider_cost" DECIMAL(20,10),
  ADD COLUMN "unpriced" BOOLEAN NOT NULL DEFAULT false;

ALTER TABLE "package_versions"
  ADD COLUMN "unit_price" DECIMAL(20,10),
  ADD COLUMN "max_provider_cost_per_day" DECIMAL(20,10);

ALTER TABLE "api_keys"
  ADD COLUMN "cost_day" DATE,
  ADD COLUMN "cost_today" DECIMAL(20,10) NOT NULL DEFAULT 0;

ALTER TABLE "providers" ADD COLUMN "prices" JSONB NOT NULL DEFAULT '{}';
