-- Selling that cannot be abused, and the buyer's e-mail confirming ownership changes (docs/selling.md).

-- A key whose payment is disputed is suspended until an operator reinstates or revokes it.
ALTER TYPE "KeyStatus" ADD VALUE 'suspended';
ALTER TABLE "api_keys" ADD COLUMN "suspended_at" TIMESTAMPTZ(3);

-- A purchase ends open (never paid: its Checkout Session expired) or refused (Stripe's amount or
-- currency was not the purchase's), besides fulfilled.
ALTER TYPE "PurchaseStatus" ADD VALUE 'expired';
ALTER TYPE "PurchaseStatus" ADD VALUE 'refused';
ALTER TABLE "purchases"
  ADD COLUMN "expires_at" TIMESTAMPTZ(3),
  ADD COLUMN "expired_at" TIMESTAMPTZ(3),
  ADD COLUMN "stripe_checked_at" TIMESTAMPTZ(3),
  ADD COLUMN "refusal" TEXT,
  ADD COLUMN "units_reclaimed" INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN "secret_purged_at" TIMESTAMPTZ(3);
CREATE INDEX "purchases_expires_at_idx" ON "purchases"("expires_at");

-- Refunds and disputes as Stripe reported them, by payment intent, whether or not the purchase
-- they belong to is fulfilled yet: fulfilment applies what arrived before it.
CREATE TABLE "payment_reversals" (
    "payment_intent_id" TEXT NOT NULL,
    "amount_refunded" INTEGER NOT NULL DEFAULT 0,
    "refunded_at" TIMESTAMPTZ(3),
    "dispute_id" TEXT,
    "dispute_reason" TEXT,
    "disputed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_reversals_pkey" PRIMARY KEY ("payment_intent_id")
);

-- A change of ownership asked for in the portal (key rotation, webhook changes), waiting for the
-- one-time code e-mailed to the buyer. Only the code's SHA-256 is stored.
CREATE TABLE "portal_confirmations" (
    "id" UUID NOT NULL,
    "portal_session_id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "webhook_url" TEXT,
    "code_hash" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),

    CONSTRAINT "portal_confirmations_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "portal_confirmations_portal_session_id_idx" ON "portal_confirmations"("portal_session_id");
CREATE INDEX "portal_confirmations_api_key_id_idx" ON "portal_confirmations"("api_key_id");
CREATE INDEX "portal_confirmations_expires_at_idx" ON "portal_confirmations"("expires_at");
ALTER TABLE "portal_confirmations" ADD CONSTRAINT "portal_confirmations_portal_session_id_fkey"
  FOREIGN KEY ("portal_session_id") REFERENCES "portal_sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "portal_confirmations" ADD CONSTRAINT "portal_confirmations_api_key_id_fkey"
  FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE CASCADE ON UPDATE CASCADE;
