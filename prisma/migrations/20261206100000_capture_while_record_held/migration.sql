-- A request's capture charges only while its idempotency record is still its own (running, its
-- id), locking the record until it commits: a record whose lease ran out is taken over by a retry,
-- which runs and charges the call, and the request it was taken from charged it too (outside audit:
-- one key, two succeeded usage events). The batch function runs the capture's new text.
CREATE OR REPLACE FUNCTION wgs_batch_capture_hold(wgs_values TEXT[], wgs_width INTEGER)
RETURNS SETOF JSONB
LANGUAGE plpgsql AS $wgs$
DECLARE
  wgs_call TEXT[];
  wgs_row RECORD;
BEGIN
  FOR wgs_index IN 0 .. cardinality(wgs_values) / wgs_width - 1 LOOP
    wgs_call := wgs_values[wgs_index * wgs_width + 1 : (wgs_index + 1) * wgs_width];
    WITH hold AS (
             UPDATE unit_holds SET status = 'captured', settled_at = now()
              WHERE id = wgs_call[1]::uuid AND status::text = 'held' AND (wgs_call[2]::uuid IS NULL OR EXISTS (SELECT 1 FROM idempotency_records WHERE id = wgs_call[3]::uuid AND status = 'running' FOR UPDATE))
             RETURNING id, api_key_id, units, counts_in_flight, expected_cost, surface
           ), metering AS (
             SELECT wgs_call[4]::jsonb AS doc
           ), key AS (
             UPDATE api_keys k SET in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END), last_used_at = now(), held_expected_cost = k.held_expected_cost - COALESCE(h.expected_cost, 0),
                    cost_today = (CASE WHEN k.cost_day = (now() AT TIME ZONE 'UTC')::date THEN k.cost_today ELSE 0 END)
                                 + COALESCE((SELECT (doc->>'provider_cost')::numeric FROM metering), 0),
                    cost_day = (now() AT TIME ZONE 'UTC')::date
               FROM hold h WHERE k.id = h.api_key_id
             RETURNING k.id
           ), usage AS (
             INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units, error_code, request_id, hold_id, job_id, input_upload_id, duration_ms, engines_tried, surface, input_tokens, output_tokens, cached_input_tokens, characters, audio_seconds, images, image_size, video_seconds, provider_cost, unpriced, usage_estimated)
             SELECT wgs_call[5]::uuid, api_key_id, wgs_call[6]::uuid, wgs_call[7]::text, wgs_call[8]::text, 'succeeded', units, wgs_call[9]::text, wgs_call[10]::text, id, wgs_call[11]::text, wgs_call[12]::text, wgs_call[13]::int, COALESCE(wgs_call[14]::text[], ARRAY[]::text[]), surface, (m.doc->>'input_tokens')::int, (m.doc->>'output_tokens')::int, (m.doc->>'cached_input_tokens')::int, (m.doc->>'characters')::int, (m.doc->>'audio_seconds')::numeric, (m.doc->>'images')::int, (m.doc->>'image_size')::text, (m.doc->>'video_seconds')::numeric, (m.doc->>'provider_cost')::numeric, COALESCE((m.doc->>'unpriced')::boolean, false), COALESCE((m.doc->>'usage_estimated')::boolean, false)
               FROM hold, metering m
              WHERE true
             RETURNING id
           ),
           idem AS (
             UPDATE idempotency_records
                SET status = 'completed', response_status = wgs_call[15]::int,
                    response_body = wgs_call[16]::text, response_events = wgs_call[17]::text
              WHERE id = wgs_call[18]::uuid AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS captured, (SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM usage)::int AS usage,
                  (SELECT count(*) FROM idem)::int AS idem
      INTO wgs_row;
    RETURN NEXT to_jsonb(wgs_row);
  END LOOP;
END
$wgs$;
