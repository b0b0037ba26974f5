-- Sliding-window rate limits: per key, the hits of the last window in one-second buckets
-- (parallel arrays, oldest first; at most window + 1 buckets whatever the limit). A hit is
-- allowed when the buckets of the window's seconds and of the current one hold fewer than the
-- limit, so no span of `window` seconds ever sees more than the limit, on any instance.
CREATE TABLE "rate_windows" (
    "key" VARCHAR(255) NOT NULL,
    "seconds" BIGINT[] NOT NULL,
    "counts" INTEGER[] NOT NULL,
    "expire_second" BIGINT NOT NULL,
    CONSTRAINT "rate_windows_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "rate_windows_expire_second_idx" ON "rate_windows"("expire_second");

-- Takes one hit for p_key when the window has room. p_now_ms is the clock in epoch
-- milliseconds; NULL (every production call) reads the database's clock, one clock for every
-- instance. Answers whether the hit was taken, the hits now in the window, and the milliseconds
-- until a hit leaves it (when refused: until enough have left for one more to fit).
CREATE FUNCTION wgs_rate_take(p_key VARCHAR, p_limit INTEGER, p_window INTEGER, p_now_ms BIGINT DEFAULT NULL)
RETURNS TABLE (allowed BOOLEAN, used INTEGER, wait_ms BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := coalesce(p_now_ms, floor(extract(epoch FROM clock_timestamp()) * 1000)::BIGINT);
  cur BIGINT := now_ms / 1000;
  s BIGINT[];
  c INTEGER[];
  total INTEGER;
  freed INTEGER := 0;
  i INTEGER;
BEGIN
  INSERT INTO rate_windows AS w (key, seconds, counts, expire_second) VALUES (p_key, '{}', '{}', cur + p_window + 1)
    ON CONFLICT (key) DO UPDATE SET key = w.key
    RETURNING w.seconds, w.counts INTO s, c;
  SELECT coalesce(array_agg(x.sec ORDER BY x.sec), '{}'), coalesce(array_agg(x.cnt ORDER BY x.sec), '{}')
    INTO s, c
    FROM unnest(s, c) AS x(sec, cnt)
   WHERE x.sec >= cur - p_window AND x.cnt > 0;
  total := coalesce((SELECT sum(v) FROM unnest(c) AS v), 0);
  allowed := total < p_limit;
  IF allowed THEN
    IF cardinality(s) > 0 AND s[cardinality(s)] >= cur THEN
      c[cardinality(c)] := c[cardinality(c)] + 1;
    ELSE
      s := s || cur;
      c := c || 1;
    END IF;
    total := total + 1;
    wait_ms := (s[1] + p_window + 1) * 1000 - now_ms;
  ELSE
    i := 0;
    LOOP
      i := i + 1;
      freed := freed + c[i];
      EXIT WHEN total - freed < p_limit OR i >= cardinality(c);
    END LOOP;
    wait_ms := (s[i] + p_window + 1) * 1000 - now_ms;
  END IF;
  UPDATE rate_windows SET seconds = s, counts = c, expire_second = greatest(cur, s[cardinality(s)]) + p_window + 1
   WHERE key = p_key;
  used := total;
  RETURN NEXT;
END;
$$;

-- Gives back the newest hit of p_key (a request that turned out to be another's).
CREATE FUNCTION wgs_rate_give_back(p_key VARCHAR) RETURNS VOID
LANGUAGE sql AS $$
  UPDATE rate_windows SET counts[cardinality(counts)] = counts[cardinality(counts)] - 1
   WHERE key = p_key AND cardinality(counts) > 0 AND counts[cardinality(counts)] > 0;
$$;
