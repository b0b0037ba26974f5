-- Webhook signing secrets are encrypted at rest like provider keys (AES-256-GCM under
-- PROVIDER_KEYS_SECRET, the key's id as associated data). The key cannot be derived in SQL: the
-- plaintext secrets already in api_keys.webhook_secret are sealed into this table by the app at
-- start (and by a delivery that meets one first), which then empties the column.
CREATE TABLE "webhook_secrets" (
    "api_key_id" UUID NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "webhook_secrets_pkey" PRIMARY KEY ("api_key_id")
);
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_api_key_id_fkey" FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
