-- A customer portal sign-in (issue 38). The cookie holds a random token; only its SHA-256 is
-- stored. The session also keeps the key's hash at sign-in, so rotating the key ends it, and it
-- is live only while the key is active and unexpired.
CREATE TABLE "portal_sessions" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "api_key_id" UUID NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "portal_sessions_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "portal_sessions_token_hash_key" ON "portal_sessions"("token_hash");

CREATE INDEX "portal_sessions_api_key_id_idx" ON "portal_sessions"("api_key_id");

CREATE INDEX "portal_sessions_expires_at_idx" ON "portal_sessions"("expires_at");

ALTER TABLE "portal_sessions" ADD CONSTRAINT "portal_sessions_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
