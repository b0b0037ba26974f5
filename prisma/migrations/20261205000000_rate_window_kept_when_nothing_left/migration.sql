-- A rate point reads its window's row as it is when none of its buckets has left the window: the
-- filter that dropped the buckets that had (unnest, three sorted array_agg) ran on every take, and
-- cost PostgreSQL about 30 of the function's 70 us per call (a window of 61 buckets, asynchronous
-- commits, one call per transaction). It still runs whenever a bucket may have to go: the oldest
-- has left, a bucket was given back to 0, or the row was written before latest_ms existed. Same
-- answers and rows (tests/integration/rate-limits-sliding.test.ts holds them to the function before).
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
  n := cardinality(s);
  -- Buckets are written in the order of their seconds, each with its latest hit within its
  -- second, so while the oldest has not left the window none has: then, unless one was given
  -- back to 0 or the row predates latest_ms, there is nothing to drop and the row is read as it is.
  IF NOT (n > 0 AND cardinality(c) = n AND cardinality(l) = n AND array_position(c, 0) IS NULL
          AND l[1] + p_window * 1000 > now_ms) THEN
    SELECT coalesce(array_agg(x.sec ORDER BY x.sec), '{}'),
           coalesce(array_agg(x.cnt ORDER BY x.sec), '{}'),
           coalesce(array_agg(coalesce(x.last, x.sec * 1000 + 999) ORDER BY x.sec), '{}')
      INTO s, c, l
      FROM unnest(s, c, l) AS x(sec, cnt, last)
     WHERE x.sec IS NOT NULL AND x.cnt > 0 AND coalesce(x.last, x.sec * 1000 + 999) + p_window * 1000 > now_ms;
    n := cardinality(s);
  END IF;
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
