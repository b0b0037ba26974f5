-- Selling through Stripe Checkout (docs/selling.md): a package version's sale terms, the
-- purchases (one row per Checkout Session, fulfilled once), and the buyer on a sold key.
CREATE TYPE "PurchaseKind" AS ENUM ('package', 'top_up');
CREATE TYPE "PurchaseStatus" AS ENUM ('open', 'fulfilled');

ALTER TABLE "package_versions" ADD COLUMN "sale" JSONB;

ALTER TABLE "api_keys"
  ADD COLUMN "purchase_id" UUID,
  ADD COLUMN "buyer_email" TEXT,
  ADD COLUMN "stripe_customer_id" TEXT;
-- One key per purchase, whatever the deliveries and races.
CREATE UNIQUE INDEX "api_keys_purchase_id_key" ON "api_keys"("purchase_id");

CREATE TABLE "purchases" (
    "id" UUID NOT NULL,
    "kind" "PurchaseKind" NOT NULL,
    "status" "PurchaseStatus" NOT NULL DEFAULT 'open',
    "package_version_id" UUID NOT NULL,
    "api_key_id" UUID,
    "units" INTEGER NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "stripe_session_id" TEXT,
    "browser_token_hash" TEXT,
    "amount_paid" INTEGER,
    "amount_refunded" INTEGER NOT NULL DEFAULT 0,
    "buyer_email" TEXT,
    "stripe_customer_id" TEXT,
    "payment_intent_id" TEXT,
    "receipt_url" TEXT,
    "secret_iv" BYTEA,
    "secret_ciphertext" BYTEA,
    "secret_auth_tag" BYTEA,
    "revealed_at" TIMESTAMPTZ(3),
    "fulfilled_at" TIMESTAMPTZ(3),
    "refunded_at" TIMESTAMPTZ(3),
    "disputed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchases_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "purchases_stripe_session_id_key" ON "purchases"("stripe_session_id");
CREATE UNIQUE INDEX "purchases_payment_intent_id_key" ON "purchases"("payment_intent_id");
CREATE INDEX "purchases_api_key_id_idx" ON "purchases"("api_key_id");
CREATE INDEX "purchases_created_at_idx" ON "purchases"("created_at");

ALTER TABLE "purchases" ADD CONSTRAINT "purchases_package_version_id_fkey"
  FOREIGN KEY ("package_version_id") REFERENCES "package_versions"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_api_key_id_fkey"
  FOREIGN KEY ("api_key_id") REFERENCES "api_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
