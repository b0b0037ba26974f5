-- A key's total units (its version's quota, the extra units it was issued with, and every top-up),
-- so the dashboard can show what is left against what was sold. Existing keys: the quota of their
-- version plus their audited top-ups, never less than what remains.
ALTER TABLE "api_keys" ADD COLUMN "total_units" INTEGER NOT NULL DEFAULT 0;

UPDATE "api_keys" AS k
SET "total_units" = GREATEST(
  k."remaining_units",
  LEAST(2147483647, v."quota_units"::bigint + COALESCE((
    SELECT SUM((a."after"->>'added')::bigint)
    FROM "audit_log" AS a
    WHERE a."action" = 'key.topup' AND a."target_type" = 'api_key' AND a."target_id" = k."id"::text
  ), 0))
)
FROM "package_versions" AS v
WHERE v."id" = k."package_version_id";

ALTER TABLE "api_keys" ALTER COLUMN "total_units" DROP DEFAULT;

-- An archived package sells no new keys; the keys already issued on it keep working.
ALTER TABLE "packages" ADD COLUMN "archived_at" TIMESTAMPTZ(3);
