-- rate-limiter-flexible's counters: no longer written since sign-in throttling moved to sign_in_throttles
-- (20261129300002) and requests per minute to rate_windows.
DROP TABLE IF EXISTS "rate_limits";
