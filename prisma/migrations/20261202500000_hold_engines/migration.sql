-- A request whose process died leaves only its hold; the sweeper returned its units with no usage event,
-- so an engine call the provider served for it was missing from the books. The hold now names, when it is
-- written (before any engine is called), the engines its request may call, and the sweeper records a failed
-- usage event (0 units, `request_lost`) naming them for every hold it returns.
ALTER TABLE "unit_holds" ADD COLUMN "engines" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];
