-- The paid path's batch functions run their statements on their cached generic plans
-- (billing/batch-function.ts). Under plan_cache_mode = auto a long-lived connection compares the generic
-- plan's cost, estimated on today's statistics, with the custom plans it made while the tables were
-- small; once the generic one looks dearer, it plans every call afresh (4 ms of PostgreSQL's CPU per call
-- instead of 0.55). Their statements are point reads and writes by key, whose generic plan is the plan.
-- Same statements as before; generated (tests/unit/batch-functions.test.ts holds them equal).

CREATE OR REPLACE FUNCTION wgs_batch_reserve_paid(wgs_values TEXT[], wgs_width INTEGER)
RETURNS SETOF JSONB
SET plan_cache_mode = force_generic_plan
LANGUAGE plpgsql AS $wgs$
DECLARE
  wgs_call TEXT[];
  wgs_row RECORD;
BEGIN
  FOR wgs_index IN 0 .. cardinality(wgs_values) / wgs_width - 1 LOOP
    wgs_call := wgs_values[wgs_index * wgs_width + 1 : (wgs_index + 1) * wgs_width];
    WITH existing AS (
             SELECT fingerprint, status, response_status, response_body, response_events,
                    (status = 'completed' OR (delivered_at IS NOT NULL AND locked_until < now())) AS replayable
               FROM idempotency_records
              WHERE api_key_id = wgs_call[1]::uuid AND method = wgs_call[2]::text
                AND path = wgs_call[3]::text AND key = wgs_call[4]::text
                AND NOT (status = 'running' AND locked_until < now() AND delivered_at IS NULL) AND expires_at >= now()
           ), rate AS (
             SELECT allowed, used, wait_ms FROM wgs_rate_take(wgs_call[5]::varchar, wgs_call[6]::int, wgs_call[7]::int)
              WHERE NOT EXISTS (SELECT 1 FROM existing)
           ), claim AS (
             INSERT INTO idempotency_records AS r
               (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
             SELECT wgs_call[8]::uuid, wgs_call[9]::uuid, wgs_call[10]::text, wgs_call[11]::text,
                    wgs_call[12]::text, wgs_call[13]::text, 'running',
                    now() + make_interval(secs => wgs_call[14]::int),
                    now() + make_interval(hours => wgs_call[15]::int)
              WHERE (SELECT allowed FROM rate)
             ON CONFLICT (api_key_id, method, path, key) DO UPDATE
               SET id = EXCLUDED.id, fingerprint = EXCLUDED.fingerprint, status = 'running',
                   locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at,
                   response_status = NULL, response_body = NULL, response_events = NULL, delivered_at = NULL, created_at = now()
               WHERE (r.status = 'running' AND r.locked_until < now() AND r.delivered_at IS NULL) OR r.expires_at < now()
             RETURNING id
           ), current AS (
               SELECT status, remaining_units, in_flight, (CASE WHEN cost_day = (now() AT TIME ZONE 'UTC')::date THEN cost_today ELSE 0 END + held_expected_cost) AS cost_today FROM api_keys WHERE id = wgs_call[16]::uuid
             ), taken AS (
               UPDATE api_keys SET remaining_units = remaining_units - wgs_call[17]::int, in_flight = in_flight + 1,
                      held_expected_cost = held_expected_cost + COALESCE(wgs_call[18]::numeric, 0)
                WHERE id = wgs_call[19]::uuid AND status = 'active' AND in_flight < wgs_call[20]::int
                  AND remaining_units >= wgs_call[21]::int
                  AND (wgs_call[22]::numeric IS NULL OR (CASE WHEN cost_day = (now() AT TIME ZONE 'UTC')::date THEN cost_today ELSE 0 END + held_expected_cost) < wgs_call[23]::numeric)
                  AND EXISTS (SELECT 1 FROM claim)
               RETURNING remaining_units
             ), hold AS (
               INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until, expected_cost, engines, surface)
               SELECT wgs_call[24]::uuid, wgs_call[25]::uuid, wgs_call[26]::int, wgs_call[27]::text, wgs_call[28]::text,
                      now() + make_interval(secs => wgs_call[29]::int), wgs_call[30]::numeric,
                      wgs_call[31]::text[], wgs_call[32]::text FROM taken
               RETURNING id
             )
        SELECT (SELECT id FROM claim) AS record_id, e.fingerprint, e.status AS existing_status,
                  e.response_status, e.response_body, e.response_events, e.replayable, rate.allowed, rate.used, rate.wait_ms, (SELECT remaining_units FROM taken) AS remaining,
                    (SELECT status FROM current) AS status,
                    (SELECT remaining_units FROM current) AS current_remaining,
                    (SELECT in_flight FROM current) AS current_in_flight,
                    (SELECT cost_today FROM current) AS current_cost_today FROM (SELECT 1) AS one LEFT JOIN existing e ON true LEFT JOIN rate ON true
      INTO wgs_row;
    RETURN NEXT to_jsonb(wgs_row);
  END LOOP;
END
$wgs$;

CREATE OR REPLACE FUNCTION wgs_batch_capture_hold(wgs_values TEXT[], wgs_width INTEGER)
RETURNS SETOF JSONB
SET plan_cache_mode = force_generic_plan
LANGUAGE plpgsql AS $wgs$
DECLARE
  wgs_call TEXT[];
  wgs_row RECORD;
BEGIN
  FOR wgs_index IN 0 .. cardinality(wgs_values) / wgs_width - 1 LOOP
    wgs_call := wgs_values[wgs_index * wgs_width + 1 : (wgs_index + 1) * wgs_width];
    WITH hold AS (
             UPDATE unit_holds SET status = 'captured', settled_at = now()
              WHERE id = wgs_call[1]::uuid AND status::text = 'held'
             RETURNING id, api_key_id, units, counts_in_flight, expected_cost, surface
           ), metering AS (
             SELECT wgs_call[2]::jsonb AS doc
           ), key AS (
             UPDATE api_keys k SET in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END), last_used_at = now(), held_expected_cost = k.held_expected_cost - COALESCE(h.expected_cost, 0),
                    cost_today = (CASE WHEN k.cost_day = (now() AT TIME ZONE 'UTC')::date THEN k.cost_today ELSE 0 END)
                                 + COALESCE((SELECT (doc->>'provider_cost')::numeric FROM metering), 0),
                    cost_day = (now() AT TIME ZONE 'UTC')::date
               FROM hold h WHERE k.id = h.api_key_id
             RETURNING k.id
           ), usage AS (
             INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units, error_code, request_id, hold_id, job_id, input_upload_id, duration_ms, engines_tried, surface, input_tokens, output_tokens, cached_input_tokens, characters, audio_seconds, images, image_size, video_seconds, provider_cost, unpriced, usage_estimated)
             SELECT wgs_call[3]::uuid, api_key_id, wgs_call[4]::uuid, wgs_call[5]::text, wgs_call[6]::text, 'succeeded', units, wgs_call[7]::text, wgs_call[8]::text, id, wgs_call[9]::text, wgs_call[10]::text, wgs_call[11]::int, COALESCE(wgs_call[12]::text[], ARRAY[]::text[]), surface, (m.doc->>'input_tokens')::int, (m.doc->>'output_tokens')::int, (m.doc->>'cached_input_tokens')::int, (m.doc->>'characters')::int, (m.doc->>'audio_seconds')::numeric, (m.doc->>'images')::int, (m.doc->>'image_size')::text, (m.doc->>'video_seconds')::numeric, (m.doc->>'provider_cost')::numeric, COALESCE((m.doc->>'unpriced')::boolean, false), COALESCE((m.doc->>'usage_estimated')::boolean, false)
               FROM hold, metering m
              WHERE true
             RETURNING id
           ),
           idem AS (
             UPDATE idempotency_records
                SET status = 'completed', response_status = wgs_call[13]::int,
                    response_body = wgs_call[14]::text, response_events = wgs_call[15]::text
              WHERE id = wgs_call[16]::uuid AND EXISTS (SELECT 1 FROM hold)
             RETURNING id
           )
           SELECT (SELECT count(*) FROM hold)::int AS captured, (SELECT count(*) FROM key)::int AS keys, (SELECT count(*) FROM usage)::int AS usage,
                  (SELECT count(*) FROM idem)::int AS idem
      INTO wgs_row;
    RETURN NEXT to_jsonb(wgs_row);
  END LOOP;
END
$wgs$;
