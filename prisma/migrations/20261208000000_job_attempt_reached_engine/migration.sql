-- A job names the attempt that last reached its engine (null: none, or started before this). A new
-- attempt that finds its job still running records that attempt, whose worker died or whose
-- result was never settled, as a lost engine call (a `failed` / `request_lost` usage event with
-- the job's id, 0 units): before, the provider job it created was in no usage event.
ALTER TABLE jobs ADD COLUMN engine_attempt INTEGER;
