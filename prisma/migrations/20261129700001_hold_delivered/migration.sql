-- A streamed answer's hold is marked delivered, durably, before its first delta is written to the
-- client (issue 36 point 1): a process that dies after that leaves a hold the sweeper captures
-- (the output was delivered, so it is paid for) rather than returns. The engine answering, the
-- engines tried and the provider usage known at that moment (an estimate) are what the sweeper's
-- usage event records.
ALTER TABLE "unit_holds"
  ADD COLUMN "delivered_at" TIMESTAMPTZ(3),
  ADD COLUMN "delivered_engine" TEXT,
  ADD COLUMN "delivered_engines_tried" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[],
  ADD COLUMN "delivered_metering" JSONB;
