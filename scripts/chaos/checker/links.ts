import type { CallRecord, History } from '../history';
import { answerId, parseJson } from './answers';
import type { BookUsage, Books } from './books';

// Which call each usage event belongs to, from what the clients saw: the X-Request-Id of an
// answer's head, the `id` of a whole answer (a replay's included), the job id of a 202, and the
// answer the product stored for the call's Idempotency-Key. A usage event none of these name was
// never seen by any client.

export interface Links {
  keyIdOf(name: string): string | undefined;
  callOfEvent(event: BookUsage): CallRecord | undefined;
  callOfRequest(requestId: string): CallRecord | undefined;
  /** The usage events each call owns. */
  eventsOf(call: CallRecord): BookUsage[];
}

function jobIdOf(call: CallRecord): string | undefined {
  if (call.job) return call.job.id;
  for (const attempt of call.attempts) {
    const id = parseJson(attempt.body)?.job_id;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

export function linkHistory(history: History, books: Books): Links {
  const keyIds = new Map(history.keys.map((key) => [key.name, key.id]));
  const byRequest = new Map<string, CallRecord>();
  const byAnswer = new Map<string, CallRecord>();
  const byJob = new Map<string, CallRecord>();
  const callsByKey = new Map<string, CallRecord>();
  for (const call of history.calls) {
    callsByKey.set(`${keyIds.get(call.key)}/${call.id}`, call);
    for (const attempt of call.attempts) {
      if (attempt.requestId) byRequest.set(attempt.requestId, call);
      const id = answerId(attempt);
      if (id) byAnswer.set(id, call);
    }
    const job = jobIdOf(call);
    if (job) byJob.set(job, call);
  }
  for (const record of books.records) {
    const call = callsByKey.get(`${record.keyId}/${record.key}`);
    const id = parseJson(record.responseBody ?? undefined)?.id;
    if (call && typeof id === 'string') byAnswer.set(id, call);
  }
  const callOfEvent = (event: BookUsage) =>
    byRequest.get(event.requestId) ?? byAnswer.get(event.id) ?? (event.jobId ? byJob.get(event.jobId) : undefined);
  const events = new Map<CallRecord, BookUsage[]>();
  for (const event of books.usage) {
    const call = callOfEvent(event);
    if (call) events.set(call, [...(events.get(call) ?? []), event]);
  }
  return {
    keyIdOf: (name) => keyIds.get(name),
    callOfEvent,
    callOfRequest: (requestId) => byRequest.get(requestId),
    eventsOf: (call) => events.get(call) ?? [],
  };
}

/** A usage event that charged units. */
export const isCharge = (event: BookUsage): boolean => event.outcome === 'succeeded' && event.units > 0;
