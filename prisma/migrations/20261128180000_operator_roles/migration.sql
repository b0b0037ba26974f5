-- Operator roles: owner (everything), admin (packages, keys, providers without their keys), viewer (read only).
CREATE TYPE "OperatorRole" AS ENUM ('owner', 'admin', 'viewer');

-- Every operator so far could do everything: each becomes an owner. Operators created later get
-- the role they are given (the first of all is an owner; see create-operator.ts).
ALTER TABLE "operators" ADD COLUMN "role" "OperatorRole" NOT NULL DEFAULT 'owner';
ALTER TABLE "operators" ALTER COLUMN "role" SET DEFAULT 'viewer';
