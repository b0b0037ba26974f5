-- The dashboard finds a call's usage event by its request id (links from jobs, uploads and the
-- usage list's request filter); without an index that is a scan of every usage event.
CREATE INDEX "usage_events_request_id_idx" ON "usage_events"("request_id");
