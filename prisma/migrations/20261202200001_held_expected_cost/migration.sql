-- A key's provider-cost budget counts the expected cost of its held jobs (unit_holds.expected_cost). It was
-- summed from the holds as the hold statement began, before the key's row was locked, so a request that
-- waited on that lock judged the budget without the jobs held meanwhile. The key's row now keeps the sum,
-- added to by the statement that holds and taken from by the one that settles, so it is read under the lock.
ALTER TABLE "api_keys" ADD COLUMN "held_expected_cost" DECIMAL(20, 10) NOT NULL DEFAULT 0;

UPDATE "api_keys" k
   SET "held_expected_cost" = h.cost
  FROM (SELECT api_key_id, sum(expected_cost) AS cost FROM "unit_holds"
         WHERE status = 'held' AND expected_cost IS NOT NULL GROUP BY api_key_id) h
 WHERE k.id = h.api_key_id;
