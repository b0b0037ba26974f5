-- A rate window's row at half its width. Each call of a batch writes a new version of its key's
-- row, none prunable before the batch commits; at 1.3 KB (a full 60 s window: 61 buckets of a
-- bigint second, an int count and a bigint latest hit) about six fitted a page, so a batch moved the
-- row off its page (not a HOT update) and the table grew. The second a bucket counts is the one its
-- latest hit falls in, so it is no longer stored, and each latest hit is kept as milliseconds after
-- the row's base_ms (an int): 0.6 KB. base_ms is the first bucket's latest hit, set again whenever
-- buckets leave, so the offsets stay within the window and a second. Same answers and rows as
-- before (tests/integration/rate-limits-sliding.test.ts holds them to 20261205000000's function).
ALTER TABLE "rate_windows" ADD COLUMN "base_ms" BIGINT NOT NULL DEFAULT 0;
ALTER TABLE "rate_windows" ADD COLUMN "latest_offsets" INTEGER[] NOT NULL DEFAULT '{}';

-- A bucket written before latest_ms existed counted until the end of its second plus the window.
UPDATE "rate_windows" w
   SET counts = x.counts, base_ms = x.base_ms, latest_offsets = x.offsets
  FROM (SELECT r.key,
               coalesce(array_agg(b.cnt ORDER BY b.i) FILTER (WHERE b.sec IS NOT NULL), '{}') AS counts,
               coalesce(min(b.first_ms), 0) AS base_ms,
               coalesce(array_agg((b.ms - b.first_ms)::INTEGER ORDER BY b.i) FILTER (WHERE b.sec IS NOT NULL), '{}') AS offsets
          FROM rate_windows r
          LEFT JOIN LATERAL (
            SELECT u.sec, u.cnt, u.i, coalesce(u.last, u.sec * 1000 + 999) AS ms,
                   first_value(coalesce(u.last, u.sec * 1000 + 999)) OVER (ORDER BY u.i) AS first_ms
              FROM unnest(r.seconds, r.counts, r.latest_ms) WITH ORDINALITY AS u(sec, cnt, last, i)
             WHERE u.sec IS NOT NULL
          ) b ON true
         GROUP BY r.key) x
 WHERE w.key = x.key;

ALTER TABLE "rate_windows" DROP COLUMN "seconds";
ALTER TABLE "rate_windows" DROP COLUMN "latest_ms";
ALTER TABLE "rate_windows" RENAME COLUMN "latest_offsets" TO "latest_ms";
ALTER TABLE "rate_windows" ALTER COLUMN "base_ms" DROP DEFAULT;
ALTER TABLE "rate_windows" ALTER COLUMN "latest_ms" DROP DEFAULT;

CREATE OR REPLACE FUNCTION wgs_rate_take(p_key VARCHAR, p_limit INTEGER, p_window INTEGER, p_now_ms BIGINT DEFAULT NULL)
RETURNS TABLE (allowed BOOLEAN, used INTEGER, wait_ms BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
  now_ms BIGINT := coalesce(p_now_ms, floor(extract(epoch FROM clock_timestamp()) * 1000)::BIGINT);
  cur BIGINT := now_ms / 1000;
  base BIGINT;
  c INTEGER[];
  l INTEGER[];
  n INTEGER;
  total INTEGER;
  freed INTEGER := 0;
  i INTEGER;
BEGIN
  -- Offsets are ints: a window of more than 24 days would not fit them.
  IF p_window > 2000000 THEN
    RAISE EXCEPTION 'wgs_rate_take: a window of % s is longer than a rate window can keep', p_window;
  END IF;
  SELECT w.base_ms, w.counts, w.latest_ms INTO base, c, l FROM rate_windows w WHERE w.key = p_key FOR UPDATE;
  IF NOT FOUND THEN
    -- A racing first hit may insert it meanwhile: then this one waits for it and locks its row.
    INSERT INTO rate_windows AS w (key, base_ms, counts, latest_ms, expire_second)
      VALUES (p_key, now_ms, '{}', '{}', cur + p_window + 1)
      ON CONFLICT (key) DO UPDATE SET key = w.key
      RETURNING w.base_ms, w.counts, w.latest_ms INTO base, c, l;
  END IF;
  n := cardinality(c);
  -- Buckets are written in the order of their seconds, each with its latest hit within its
  -- second, so while the oldest has not left the window none has: then, unless one was given
  -- back to 0, there is nothing to drop and the row is read as it is. Otherwise the buckets still
  -- in the window are kept and base_ms moves to the first one's latest hit (to now when none is).
  IF NOT (n > 0 AND cardinality(l) = n AND array_position(c, 0) IS NULL AND base + l[1] + p_window * 1000 > now_ms) THEN
    SELECT coalesce(array_agg(x.cnt ORDER BY x.i), '{}'),
           coalesce(array_agg((x.ms - x.first_ms)::INTEGER ORDER BY x.i), '{}'),
           coalesce(min(x.first_ms), now_ms)
      INTO c, l, base
      FROM (SELECT y.cnt, y.i, y.ms, first_value(y.ms) OVER (ORDER BY y.i) AS first_ms
              FROM (SELECT u.cnt, u.i, base + u.off AS ms FROM unnest(c, l) WITH ORDINALITY AS u(cnt, off, i)) y
             WHERE y.cnt > 0 AND y.ms + p_window * 1000 > now_ms) x;
    n := cardinality(c);
  END IF;
  total := coalesce((SELECT sum(v) FROM unnest(c) AS v), 0);
  allowed := total < p_limit;
  IF allowed THEN
    IF n > 0 AND (base + l[n]) / 1000 >= cur THEN
      c[n] := c[n] + 1;
      l[n] := greatest(l[n], now_ms - base);
    ELSE
      c := c || 1;
      l := l || (now_ms - base)::INTEGER;
    END IF;
    n := cardinality(c);
    total := total + 1;
    wait_ms := base + l[1] + p_window * 1000 - now_ms;
    UPDATE rate_windows SET base_ms = base, counts = c, latest_ms = l,
           expire_second = greatest(cur, (base + l[n]) / 1000) + p_window + 1
     WHERE key = p_key;
  ELSE
    i := 0;
    LOOP
      i := i + 1;
      freed := freed + c[i];
      EXIT WHEN total - freed < p_limit OR i >= n;
    END LOOP;
    wait_ms := base + l[i] + p_window * 1000 - now_ms;
  END IF;
  used := total;
  RETURN NEXT;
END;
$$;
