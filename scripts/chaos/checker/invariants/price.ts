import type { CallRecord } from '../../history';
import { completeAnswer, isGeneration, parseJson } from '../answers';
import type { Books } from '../books';
import type { Invariant, Violation } from '../invariant';
import type { Links } from '../links';

// Each charge is the price, no more and no less: a call's every succeeded usage event charges its
// package's units for the operation (the price the harness applied), through a hold of its own
// that was captured for exactly that; and every whole answer a client got says it was charged
// that price. The per-key sums (units.ts) cannot see one call over-charged and another under.

function chargeViolations(call: CallRecord, books: Books, links: Links): Violation[] {
  const subject = `call ${call.id}`;
  const violations: Violation[] = [];
  for (const event of links.eventsOf(call).filter((e) => e.outcome === 'succeeded')) {
    if (event.units !== call.units) {
      violations.push({ subject, message: `usage ${event.id} charged ${event.units} units for a ${call.units}-unit ${call.operation}` });
    }
    const hold = books.holds.find((h) => h.id === event.holdId);
    if (!hold || hold.status !== 'captured' || hold.units !== event.units) {
      const found = hold ? `${hold.status} for ${hold.units}` : 'none';
      violations.push({ subject, message: `usage ${event.id} charged ${event.units} units, its hold ${event.holdId}: ${found}` });
    }
  }
  return violations;
}

function answerViolations(call: CallRecord): Violation[] {
  const violations: Violation[] = [];
  call.attempts.forEach((attempt, index) => {
    const usage = parseJson(completeAnswer(attempt))?.usage as { charged_units?: unknown } | undefined;
    if (usage?.charged_units !== undefined && usage.charged_units !== call.units) {
      violations.push({
        subject: `call ${call.id}`,
        message: `attempt ${index + 1} (request ${attempt.requestId}) said charged_units ${String(usage.charged_units)} for a ${call.units}-unit ${call.operation}`,
      });
    }
  });
  return violations;
}

export const chargedThePrice: Invariant = {
  name: 'charged-the-price',
  description: "every charge and every whole answer's charged_units is the package's price for the call, through its own captured hold",
  check(history, books, links) {
    const violations: Violation[] = [];
    let checked = 0;
    for (const call of history.calls.filter(isGeneration)) {
      if (links.eventsOf(call).length === 0 && !call.attempts.some((attempt) => completeAnswer(attempt) !== undefined)) continue;
      checked++;
      violations.push(...chargeViolations(call, books, links), ...answerViolations(call));
    }
    return { checked, violations };
  },
};
