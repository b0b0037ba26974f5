import type { History } from '../history';
import type { Books } from './books';
import type { Invariant, Violation } from './invariant';
import { checkoutsFulfilledOnce } from './invariants/checkouts';
import { deliveredCharged } from './invariants/delivered';
import { engineCallsAccounted } from './invariants/engine-calls';
import { idempotencyCharged } from './invariants/idempotency';
import { chargedThePrice } from './invariants/price';
import { jobsChargedByState } from './invariants/jobs';
import { keysWithinLimits } from './invariants/limits';
import { noOpenHold, unitsConserved } from './invariants/units';
import { linkHistory } from './links';

// The independent checker: the run's history (what its clients and fakes saw) against the books
// (what the database says), one named invariant at a time.

const INVARIANTS: Invariant[] = [
  unitsConserved,
  noOpenHold,
  idempotencyCharged,
  deliveredCharged,
  chargedThePrice,
  engineCallsAccounted,
  keysWithinLimits,
  jobsChargedByState,
  checkoutsFulfilledOnce,
];

export interface InvariantResult {
  name: string;
  description: string;
  checked: number;
  violations: Violation[];
}

export function checkBooks(history: History, books: Books): InvariantResult[] {
  const links = linkHistory(history, books);
  return INVARIANTS.map((invariant) => ({
    name: invariant.name,
    description: invariant.description,
    ...invariant.check(history, books, links),
  }));
}
