-- A video job's expected provider cost, held with its units, so that a key's budget counts the
-- jobs it has queued or running before their cost is known.
ALTER TABLE "unit_holds" ADD COLUMN "expected_cost" DECIMAL(20,10);
