-- A running job that is cancelled is charged (its provider was already at work): the job says so.
ALTER TABLE "jobs" ADD COLUMN "charged_on_cancel" BOOLEAN NOT NULL DEFAULT false;
