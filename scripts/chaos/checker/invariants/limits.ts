import type { History, KeyRecord } from '../../history';
import { completeAnswer, parseJson } from '../answers';
import type { BookHold, BookKey } from '../books';
import type { Invariant, Violation } from '../invariant';

// No key below zero or over its limits: its row at rest and at every sample the run took
// (remaining units from 0 to the units sold, requests in flight from 0 to the package's
// concurrency), every balance an answer reported, and the requests admitted in any minute (one
// hold each) at most its requests per minute.

const WINDOW_MS = 60_000;

function rowProblems(key: KeyRecord, row: BookKey): string[] {
  const problems: string[] = [];
  if (row.remaining < 0) problems.push(`remaining ${row.remaining} below zero`);
  if (row.remaining > row.total) problems.push(`remaining ${row.remaining} above the ${row.total} units sold`);
  if (row.inFlight < 0 || row.inFlight > key.concurrency) problems.push(`in_flight ${row.inFlight} outside 0..${key.concurrency}`);
  return problems;
}

function sampleProblems(history: History, key: KeyRecord): string[] {
  const sample = history.samples.find((s) => s.keyId === key.id);
  if (!sample) return [];
  const problems: string[] = [];
  if (sample.minRemaining < 0) problems.push(`sampled remaining ${sample.minRemaining} below zero`);
  if (sample.maxInFlight > key.concurrency) problems.push(`sampled in_flight ${sample.maxInFlight} above concurrency ${key.concurrency}`);
  if (sample.maxAboveTotal > 0) problems.push(`sampled remaining above the units sold by ${sample.maxAboveTotal}`);
  return problems;
}

function answeredBelowZero(history: History, key: KeyRecord): string[] {
  const problems: string[] = [];
  for (const call of history.calls.filter((c) => c.key === key.name)) {
    for (const attempt of call.attempts) {
      const usage = parseJson(completeAnswer(attempt))?.usage as { remaining_units?: number } | undefined;
      if (typeof usage?.remaining_units === 'number' && usage.remaining_units < 0)
        problems.push(`call ${call.id} was told remaining_units ${usage.remaining_units}`);
    }
  }
  return problems;
}

/** The most holds the key took within any minute. */
export function busiestMinute(holds: BookHold[], keyId: string): number {
  const times = holds.filter((hold) => hold.keyId === keyId).map((hold) => hold.createdAtMs);
  times.sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= WINDOW_MS) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

export const keysWithinLimits: Invariant = {
  name: 'keys-within-limits',
  description: 'no key ever below zero units or over its quota, concurrency or requests per minute',
  check(history, books) {
    const violations: Violation[] = [];
    for (const key of history.keys) {
      const row = books.keys.find((k) => k.id === key.id);
      const problems = [...(row ? rowProblems(key, row) : []), ...sampleProblems(history, key), ...answeredBelowZero(history, key)];
      const busiest = busiestMinute(books.holds, key.id);
      if (busiest > key.requestsPerMinute) problems.push(`${busiest} requests admitted within a minute, limit ${key.requestsPerMinute}`);
      violations.push(...problems.map((message) => ({ subject: `key ${key.name}`, message })));
    }
    return { checked: history.keys.length, violations };
  },
};
