import { getConfig } from '../config';
import { firstEngine } from '../domain/billing/reservation';
import { loggedEngine, type OpenReservation } from '../domain/billing/reserve';
import { ApiError } from '../domain/errors';
import { engineFailureOf, withEngineReport, type EngineReport } from '../domain/generation/call-engine';
import { interruptedMessage } from '../domain/generation/stream-endings';
import { noteEngine, noteHeld } from '../observability/request-record';
import { traceStep } from '../observability/tracing';
import type { Outcome, RouteContext, RunContext } from './route-context';
import { requestDeadline, type RequestDeadline } from './request-deadline';
import { whenClientGone } from './event-stream';
import { answeredCode } from './responses';

// Step 11 and what ends it, one lifecycle for every POST that got past step 10: the operation
// runs under the lease's deadline, then the reservation is settled, or abandoned when it failed.
// A JSON answer and an event stream differ only in how the output reaches the client: the
// AnswerChannel (jsonChannel below, streamChannel in stream-channel.ts).

/** What running the operation gave: its outcome, and for a streamed call charged without `done`, how it ended. */
export interface Ran {
  outcome: Outcome;
  /** The usage event's error_code of a call charged without `done` reaching it (generation/stream-endings.ts). */
  note?: string;
  /** A streamed answer that ended in `error` after output was delivered: that error, and the events a streamed replay writes. */
  interrupted?: { error: ApiError; events: string };
}

/** How one answer's output reaches its client. */
export interface AnswerChannel {
  /** Runs the operation; it throws only when no output reached the client (nothing is charged then). */
  run(ctx: RunContext, deadline: RequestDeadline): Promise<Ran>;
  /** Why the operation failed when its error says nothing of it (a client gone before any output). */
  failureCode?(): string | undefined;
  /** Whether output reached the client: the call is then charged, and its reservation never given back. */
  delivered?(): boolean;
}

/** A settled answer: its status and the body stored for replays; `interrupted`, the error a charged stream ends with. */
export interface SettledAnswer {
  status: number;
  body: string;
  interrupted?: ApiError;
}

/** The operation answered as JSON: its output reaches the client after the reservation is settled. */
export function jsonChannel<P>(run: (prepared: P, ctx: RunContext) => Promise<Outcome>, prepared: P): AnswerChannel {
  return { run: async (ctx) => ({ outcome: await run(prepared, ctx) }) };
}

/**
 * The operation answered as events once its answer is whole (/openai/v1's code.generate stream):
 * nothing reaches the client before the reservation is settled, so a client gone before then is
 * charged nothing, as a stream's before its first piece: the engine call is aborted, the units go back.
 */
export function wholeAnswerChannel<P>(
  run: (prepared: P, ctx: RunContext) => Promise<Outcome>,
  prepared: P,
  request: AbortSignal,
): AnswerChannel {
  let gone: unknown;
  return {
    async run(ctx, deadline) {
      const leave = () => {
        gone = new DOMException('The client closed the stream.', 'AbortError');
        deadline.abort(gone);
      };
      whenClientGone(request, leave); // at once when it half-closed while its request was checked
      try {
        const outcome = await run(prepared, ctx);
        if (gone && outcome.kind === 'generation') throw withEngineReport(gone, outcome.engines);
        return { outcome };
      } finally {
        request.removeEventListener('abort', leave);
      }
    },
    failureCode: () => (gone ? 'client_disconnected' : undefined),
  };
}

/**
 * Runs the operation and settles its reservation: reserve → run → settle. An operation that fails
 * gives its units back at once (a release the database refused answers instead); anything failing
 * after it (the settling itself) leaves the reservation abandoned too, so it never outlives the
 * request, with the engine call that answered recorded as a failed attempt, unless output was delivered: that call is charged (its hold marked delivered, the sweeper
 * captures it) and its key keeps the answer stored with the mark, so the stream ends `output_interrupted`.
 */
export async function runAndSettle(ctx: RouteContext, reservation: OpenReservation, channel: AnswerChannel): Promise<SettledAnswer> {
  const deadline = requestDeadline((getConfig().IDEMPOTENCY_LEASE_SECONDS - 5) * 1000);
  const { charge } = reservation.request;
  noteHeld(ctx.record, charge && { ...charge, engine: firstEngine(charge) });
  const runContext: RunContext = { ...ctx, hold: reservation.hold, idempotencyRecordId: reservation.recordId, signal: deadline.signal };
  let engines: EngineReport | undefined;
  try {
    const ran = await traceStep('run', () => channel.run(runContext, deadline)).catch(async (thrown: unknown) => {
      const failure = engineFailureOf(thrown);
      engines = failure.engines;
      const code = channel.failureCode?.();
      if (code === 'client_disconnected') ctx.record.clientGone = true;
      await reservation.abandon({ error: failure.error, code, engines });
      throw failure.error;
    });
    deadline.clear();
    if (ran.outcome.kind === 'generation') engines = ran.outcome.engines;
    const settled = await traceStep('settle', () => settle(reservation, ran));
    return ran.interrupted ? { ...settled, interrupted: ran.interrupted.error } : settled;
  } catch (error) {
    if (channel.delivered?.()) throw new ApiError('output_interrupted', { message: interruptedMessage('stream_interrupted') });
    // Nothing when the failure above abandoned it already. An engine that answered before the
    // settling failed (the database away) is recorded as a failed attempt: no engine call is missing
    // from the books. A release the database cannot take now is queued (pending-releases.ts).
    const failure = engines && { error, code: answeredCode(error), engines };
    await reservation.abandon(failure).catch(() => undefined);
    throw error;
  } finally {
    deadline.clear();
    if (charge) noteEngine(ctx.record, loggedEngine(charge, engines));
  }
}

/** A generation's hold captured with its usage event and stored 200; any other success stored for replay. */
async function settle(reservation: OpenReservation, ran: Ran): Promise<SettledAnswer> {
  const { outcome, note, interrupted } = ran;
  if (outcome.kind === 'generation') {
    const { output, engines } = outcome;
    return { status: 200, body: await reservation.settle({ kind: 'generation', output, engines, note, events: interrupted?.events }) };
  }
  const body = JSON.stringify(outcome.body);
  await reservation.settle({ kind: 'resource', status: outcome.status, body, stored: outcome.settled ?? false });
  return { status: outcome.status, body };
}
