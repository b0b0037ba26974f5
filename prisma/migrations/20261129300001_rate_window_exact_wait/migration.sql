-- A 429 never asks for longer than its window. Each one-second bucket now also keeps the time
-- (epoch ms) of its latest hit, and a bucket leaves the window exactly `window` seconds after
-- that hit (before: at the end of its second plus the window, so a 60 s limit could answer
-- Retry-After: 61). A hit still counts at least the window's length after it was taken, so no
-- span of `window` seconds ever holds more than the limit; the wait named is now the exact time
-- until the bucket that frees a place leaves, at most the window.
ALTER TABLE "rate_windows" ADD COLUMN "latest_ms" BIGINT[] NOT NULL DEFAULT '{}';
ALTER TABLE "rate_windows" ALTER COLUMN "latest_ms" DROP DEFAULT;

-- Rows written before this migration have no latest_ms: their buckets count as if their latest
-- hit came at the end of their second (the old rule), so no hit leaves early.
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
  INSERT INTO rate_windows AS w (key, seconds, counts, latest_ms, expire_second)
    VALUES (p_key, '{}', '{}', '{}', cur + p_window + 1)
    ON CONFLICT (key) DO UPDATE SET key = w.key
    RETURNING w.seconds, w.counts, w.latest_ms INTO s, c, l;
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
  ELSE
    i := 0;
    LOOP
      i := i + 1;
      freed := freed + c[i];
      EXIT WHEN total - freed < p_limit OR i >= n;
    END LOOP;
    wait_ms := l[i] + p_window * 1000 - now_ms;
  END IF;
  UPDATE rate_windows SET seconds = s, counts = c, latest_ms = l,
         expire_second = greatest(cur, s[cardinality(s)]) + p_window + 1
   WHERE key = p_key;
  used := total;
  RETURN NEXT;
END;
$$;
