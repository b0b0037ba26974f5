-- A rate point writes its window's row once, and a refused one writes none. Before, every take
-- wrote the row twice (INSERT ... ON CONFLICT DO UPDATE to lock and read it, then the UPDATE of its
-- buckets), so each paid call left two versions of a row of up to window + 1 buckets, and a flood
-- of refused requests (a key's 429s past its requests per minute, checkout starts, webhook resends
-- and portal confirmations past theirs) wrote as much as admitted ones. Now the row is locked and read with SELECT ... FOR UPDATE (inserted only when the key has
-- none), and its buckets are written only when the hit is taken: a refusal changes nothing (its
-- stale buckets are left out again on the next read, as before). Same rules, same results.
CREATE OR REPLACE FUNCTION wgs_rate_take(p_key VARCHAR, p_limit INTEGER, p_window INTEGER, p_now_ms BIGINT DEFAULT NULL)
RETURNS TABLE (allowed BOOLEAN, used INTEGER, wait_ms BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := coalesce(p_now_ms, floor(extract(epoch FROM clock_timestamp()) * 1000)::BIGINT);
  cur BIGINT := now_ms / 1000;
  s BIGINT[];
  c INTEGER[];
  l BIGINT[];
  n INTEGER;
  total INTEGER;
  freed INTEGER := 0;
  i INTEGER;
BEGIN
  SELECT w.seconds, w.counts, w.latest_ms INTO s, c, l FROM rate_windows w WHERE w.key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    -- A racing first hit may insert it meanwhile: then this one waits for it and locks its row.
    INSERT INTO rate_windows AS w (key, seconds, counts, latest_ms, expire_second)
      VALUES (p_key, '{}', '{}', '{}', cur + p_window + 1)
      ON CONFLICT (key) DO UPDATE SET key = w.key
      RETURNING w.seconds, w.counts, w.latest_ms INTO s, c, l;
  END IF;
  SELECT coalesce(array_agg(x.sec ORDER BY x.sec), '{}'),
         coalesce(array_agg(x.cnt ORDER BY x.sec), '{}'),
         coalesce(array_agg(coalesce(x.last, x.sec * 1000 + 999) ORDER BY x.sec), '{}')
    INTO s, c, l
    FROM unnest(s, c, l) AS x(sec, cnt, last)
   WHERE x.sec IS NOT NULL AND x.cnt > 0 AND coalesce(x.last, x.sec * 1000 + 999) + p_window * 1000 > now_ms;
  n := cardinality(s);
  total := coalesce((SELECT sum(v) FROM unnest(c) AS v), 0);
  allowed := total < p_limit;
  IF allowed THEN
    IF n > 0 AND s[n] >= cur THEN
      c[n] := c[n] + 1;
      l[n] := greatest(l[n], now_ms);
    ELSE
      s := s || cur;
      c := c || 1;
      l := l || now_ms;
    END IF;
    total := total + 1;
    wait_ms := l[1] + p_window * 1000 - now_ms;
    UPDATE rate_windows SET seconds = s, counts = c, latest_ms = l,
           expire_second = greatest(cur, s[cardinality(s)]) + p_window + 1
     WHERE key = p_key;
  ELSE
    i := 0;
    LOOP
      i := i + 1;
      freed := freed + c[i];
      EXIT WHEN total - freed < p_limit OR i >= n;
    END LOOP;
    wait_ms := l[i] + p_window * 1000 - now_ms;
  END IF;
  used := total;
  RETURN NEXT;
END;
$$;
