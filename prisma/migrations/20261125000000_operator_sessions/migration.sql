-- A dashboard session is a row: sign-out ends it on the server, not only in the browser, so a
-- copied session cookie stops working at once.
CREATE TABLE "operator_sessions" (
    "id" UUID NOT NULL,
    "operator_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "operator_sessions_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "operator_sessions_operator_id_idx" ON "operator_sessions"("operator_id");

CREATE INDEX "operator_sessions_expires_at_idx" ON "operator_sessions"("expires_at");

ALTER TABLE "operator_sessions" ADD CONSTRAINT "operator_sessions_operator_id_fkey" FOREIGN KEY ("operator_id") REFERENCES "operators"("id") ON DELETE CASCADE ON UPDATE CASCADE;
