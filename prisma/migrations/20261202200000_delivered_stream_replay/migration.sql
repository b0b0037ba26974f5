-- Output delivered is output paid for, and its Idempotency-Key stays with the charged call (CONTRACT.md §8).
-- When a streamed answer's hold is marked delivered, its idempotency record is too, with the answer a replay
-- gives if the request never settles (its process died): such a record is never taken over by a claim, and
-- past its lease it replays that answer. `response_events` is what a streamed replay writes for a call charged
-- without `done` (its deltas and its terminal `error` event). The hold keeps the id of the usage event that
-- answer names, for the sweeper's capture.
ALTER TABLE "idempotency_records"
  ADD COLUMN "delivered_at" TIMESTAMPTZ(3),
  ADD COLUMN "response_events" TEXT;

ALTER TABLE "unit_holds"
  ADD COLUMN "delivered_usage_event_id" UUID;
