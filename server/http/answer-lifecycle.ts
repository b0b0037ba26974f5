import { getConfig } from '../config';
import { firstEngine } from '../domain/billing/reservation';
import { loggedEngine, type OpenReservation } from '../domain/billing/reserve';
import type { RenderGeneration } from '../domain/billing/settle-request';
import { engineReportOf, type EngineReport } from '../domain/generation/call-engine';
import { noteEngine, noteHeld } from '../observability/request-record';
import { traceStep } from '../observability/tracing';
import type { Outcome, RouteContext, RunContext } from './route-context';
import { requestDeadline, type RequestDeadline } from './request-deadline';

// Step 11 and what ends it, one lifecycle for every POST that got past step 10: the operation
// runs under the lease's deadline, then the reservation is settled, or abandoned when it failed.
// A JSON answer and an event stream differ only in how the output reaches the client: the
// AnswerChannel (jsonChannel below, streamChannel in stream-channel.ts).

/** How one answer's output reaches its client. */
export interface AnswerChannel {
  /** Runs the operation; `note` is the usage event's error_code of a call charged without `done` reaching it. */
  run(ctx: RunContext, deadline: RequestDeadline): Promise<{ outcome: Outcome; note?: string }>;
  /** Why the operation failed when its error says nothing of it (a client gone before any output). */
  failureCode?(): string | undefined;
}

/** A settled answer: its status and the body stored for replays. */
export interface SettledAnswer {
  status: number;
  body: string;
}

/** The operation answered as JSON: its output reaches the client after the reservation is settled. */
export function jsonChannel<P>(run: (prepared: P, ctx: RunContext) => Promise<Outcome>, prepared: P): AnswerChannel {
  return { run: async (ctx) => ({ outcome: await run(prepared, ctx) }) };
}

/**
 * Runs the operation and settles its reservation: reserve → run → settle. An operation that fails
 * gives its units back at once (a release the database refused answers instead); anything failing
 * after it (the settling itself) leaves the reservation abandoned too, so it never outlives the request.
 * `render` is the body a surface stores for a generation's replays (the Generation result when omitted).
 */
export async function runAndSettle(
  ctx: RouteContext,
  reservation: OpenReservation,
  channel: AnswerChannel,
  render?: RenderGeneration,
): Promise<SettledAnswer> {
  const deadline = requestDeadline(Math.max(1, getConfig().IDEMPOTENCY_LEASE_SECONDS - 5) * 1000);
  const { charge } = reservation.request;
  noteHeld(ctx.record, charge && { ...charge, engine: firstEngine(charge) });
  const runContext: RunContext = { ...ctx, hold: reservation.hold, idempotencyRecordId: reservation.recordId, signal: deadline.signal };
  let engines: EngineReport | undefined;
  try {
    const ran = await traceStep('run', () => channel.run(runContext, deadline)).catch(async (error: unknown) => {
      engines = engineReportOf(error);
      await reservation.abandon({ error, code: channel.failureCode?.(), engines });
      throw error;
    });
    deadline.clear();
    if (ran.outcome.kind === 'generation') engines = ran.outcome.engines;
    return await traceStep('settle', () => settle(reservation, ran.outcome, ran.note, render));
  } catch (error) {
    await reservation.abandon(); // nothing when the failure above abandoned it already
    throw error;
  } finally {
    deadline.clear();
    if (charge) noteEngine(ctx.record, loggedEngine(charge, engines));
  }
}

/** A generation's hold captured with its usage event and stored 200; any other success stored for replay. */
async function settle(
  reservation: OpenReservation,
  outcome: Outcome,
  note: string | undefined,
  render: RenderGeneration | undefined,
): Promise<SettledAnswer> {
  if (outcome.kind === 'generation') {
    const { output, engines } = outcome;
    return { status: 200, body: await reservation.settle({ kind: 'generation', output, engines, note, render }) };
  }
  const body = JSON.stringify(outcome.body);
  await reservation.settle({ kind: 'resource', status: outcome.status, body, stored: outcome.settled ?? false });
  return { status: outcome.status, body };
}
