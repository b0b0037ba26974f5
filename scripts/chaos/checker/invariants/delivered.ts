import type { Attempt, CallRecord } from '../../history';
import { answerId, deliveredOutput, isGeneration, replayedRequestId, streamErrorCode } from '../answers';
import type { BookUsage } from '../books';
import type { Invariant, Violation } from '../invariant';
import { isCharge, type Links } from '../links';

// Output delivered is output paid for (CONTRACT.md §8), and nothing else is: every answer whose
// output reached its client (a whole JSON answer, or a stream with at least one delta) is charged
// exactly once, by its own request or, for a replay, by the call's first answer; a stream that
// ends in `error` after a delta says the units were charged (never `provider_unavailable`); and
// every charge belongs to an answer a client received.

function checkAttempt(call: CallRecord, attempt: Attempt, index: number, charges: BookUsage[]): Violation[] {
  const subject = `call ${call.id}`;
  if (!deliveredOutput(attempt)) return [];
  if (attempt.replayed) {
    return charges.length === 0 ? [{ subject, message: `attempt ${index + 1} replayed output the call was never charged for` }] : [];
  }
  const own = charges.filter((charge) => charge.requestId === attempt.requestId || charge.id === answerId(attempt));
  const violations: Violation[] = [];
  if (own.length !== 1) {
    const what = attempt.deltas ? `${attempt.deltas.length} deltas, then ${attempt.ending}` : `a ${attempt.status} answer`;
    violations.push({
      subject,
      message: `attempt ${index + 1} (request ${attempt.requestId}) delivered ${what} and was charged ${own.length} times`,
    });
  }
  const code = streamErrorCode(attempt);
  if (attempt.deltas?.length && code === 'provider_unavailable') {
    violations.push({
      subject,
      message: `attempt ${index + 1} ended in error provider_unavailable ("nothing charged") after ${attempt.deltas.length} deltas`,
    });
  }
  return violations;
}

/**
 * A charge a client received: its request's own answer, or the call's answer given again (a whole
 * answer by its id; a stream that ended interrupted by the request its `error` event names, as a
 * process killed after the first delta was marked delivered leaves it for a retry to replay).
 */
function chargeDelivered(call: CallRecord, charge: BookUsage): boolean {
  return call.attempts.some(
    (attempt) =>
      deliveredOutput(attempt) &&
      (attempt.requestId === charge.requestId || answerId(attempt) === charge.id || replayedRequestId(attempt) === charge.requestId),
  );
}

export const deliveredCharged: Invariant = {
  name: 'delivered-output-charged-once',
  description: 'every answer or stream with delivered output charged exactly once, and nothing charged that delivered nothing',
  check(history, books, links: Links) {
    const violations: Violation[] = [];
    const calls = history.calls.filter(isGeneration);
    let checked = 0;
    for (const call of calls) {
      const charges = links.eventsOf(call).filter(isCharge);
      call.attempts.forEach((attempt, index) => {
        checked++;
        violations.push(...checkAttempt(call, attempt, index, charges));
      });
      for (const charge of charges) {
        if (!chargeDelivered(call, charge)) {
          violations.push({
            subject: `call ${call.id}`,
            message: `charged ${charge.units} units (request ${charge.requestId}, ${charge.errorCode ?? 'succeeded'}) for output no client received`,
          });
        }
      }
    }
    const ours = new Set(history.keys.map((key) => key.id));
    for (const event of books.usage) {
      if (ours.has(event.keyId) && isCharge(event) && !event.jobId && !links.callOfEvent(event)) {
        checked++;
        violations.push({
          subject: `usage ${event.id}`,
          message: `${event.operation} charged ${event.units} units (request ${event.requestId}) that no client's call names`,
        });
      }
    }
    return { checked, violations };
  },
};
