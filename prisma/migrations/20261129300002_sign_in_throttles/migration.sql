-- Operator sign-in throttling (server/auth/sign-in-throttle.ts): failures counted per account
-- and client address together, and per address, each with a delay that doubles past a free
-- allowance. Times are epoch milliseconds of the database's clock, shared by every instance.
CREATE TABLE "sign_in_throttles" (
    "key" VARCHAR(400) NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "last_failure_ms" BIGINT NOT NULL DEFAULT 0,
    "next_attempt_ms" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "sign_in_throttles_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "sign_in_throttles_last_failure_ms_idx" ON "sign_in_throttles"("last_failure_ms");
