-- A unit hold names the idempotency record its request claimed (null: none, or written before
-- this). A retry that takes over the record of a request that died (past its lease) made that
-- hold dead, as the dead request can no longer capture it; a refusal for units, a slot or the
-- budget now returns such holds of its key at once (billing/sweep-expired-holds.ts
-- settleTakenOverHolds), where before they kept them until the sweeper (HOLD_LEASE_SECONDS + 15 s),
-- answering 402 or 429 meanwhile. The batch function runs the reservation's new text.
ALTER TABLE unit_holds ADD COLUMN record_id UUID;

CREATE OR REPLACE FUNCTION wgs_batch_reserve_paid(wgs_values TEXT[], wgs_width INTEGER)
RETURNS SETOF JSONB
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
               INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until, expected_cost, engines, surface, record_id)
               SELECT wgs_call[24]::uuid, wgs_call[25]::uuid, wgs_call[26]::int, wgs_call[27]::text, wgs_call[28]::text,
                      now() + make_interval(secs => wgs_call[29]::int), wgs_call[30]::numeric,
                      wgs_call[31]::text[], wgs_call[32]::text, wgs_call[33]::uuid FROM taken
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
