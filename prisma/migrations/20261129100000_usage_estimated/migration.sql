-- A call that ended early (a stream cut short) records the usage it incurred; when its provider
-- reported none, the figure is an estimate from the text delivered, and says so.
ALTER TABLE "usage_events" ADD COLUMN "usage_estimated" BOOLEAN NOT NULL DEFAULT false;
