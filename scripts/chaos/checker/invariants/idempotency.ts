import type { CallRecord } from '../../history';
import { canonical, completeAnswer, deliveredText, parseJson } from '../answers';
import type { Invariant, Violation } from '../invariant';
import { isCharge, type Links } from '../links';

// An Idempotency-Key is charged at most once, and every answer it gets again is the first one:
// each whole answer (a JSON body, a stream's `done`) the same JSON, and each streamed answer a
// part of it.

function outputText(answer: string): string | undefined {
  const output = parseJson(answer)?.output as { text?: unknown } | undefined;
  return typeof output?.text === 'string' ? output.text : undefined;
}

function answersDiffer(call: CallRecord): Violation[] {
  const violations: Violation[] = [];
  const whole = call.attempts.map((attempt, index) => ({ index, answer: completeAnswer(attempt) }));
  const first = whole.find((w) => w.answer !== undefined);
  if (!first) return violations;
  const firstJson = parseJson(first.answer);
  for (const { index, answer } of whole) {
    if (answer === undefined || index === first.index) continue;
    const same = firstJson ? canonical(parseJson(answer)) === canonical(firstJson) : answer === first.answer;
    if (!same)
      violations.push({ subject: `call ${call.id}`, message: `attempt ${index + 1}'s answer differs from attempt ${first.index + 1}'s` });
  }
  const text = outputText(first.answer!);
  call.attempts.forEach((attempt, index) => {
    const streamed = deliveredText(attempt);
    if (text !== undefined && attempt.deltas && !text.startsWith(streamed)) {
      violations.push({ subject: `call ${call.id}`, message: `attempt ${index + 1} streamed text that is not the answer's` });
    }
  });
  return violations;
}

export const idempotencyCharged: Invariant = {
  name: 'idempotency-key-charged-once',
  description: 'each Idempotency-Key charged at most once, and every replay identical to its first answer',
  check(history, _books, links: Links) {
    const violations: Violation[] = [];
    const calls = history.calls.filter((call) => call.operation !== 'checkout');
    for (const call of calls) {
      const charges = links.eventsOf(call).filter(isCharge);
      if (charges.length > 1) {
        const which = charges.map((c) => `${c.requestId} (${c.errorCode ?? 'succeeded'})`).join(', ');
        violations.push({ subject: `call ${call.id}`, message: `charged ${charges.length} times: ${which}` });
      }
      violations.push(...answersDiffer(call));
    }
    return { checked: calls.length, violations };
  },
};
