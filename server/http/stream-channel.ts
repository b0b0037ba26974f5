import type { OpenReservation } from '../domain/billing/reserve';
import { withEngineReport } from '../domain/generation/call-engine';
import type { StreamDeltaSink } from '../domain/generation/text-and-code';
import type { AnswerChannel } from './answer-lifecycle';
import { firstDeltaGate, type FirstDeltaGate } from './first-delta-gate';
import type { Outcome, RunContext } from './route-context';

// The operation answered as an event stream (event-stream.ts): its pieces reach the client as they
// come, and `done` only after the capture committed. Output delivered is output paid for: the hold
// is marked delivered (one durable statement) before the first delta is written, so that even a
// process that dies after it leaves a hold the sweeper captures; a client that goes away after the
// first delta was written leaves the call running to its end (within the deadline), and the call is
// charged and stored for replays as if `done` had reached it; one that goes away before any delta
// aborts the call, which gives the units back. A failure (of the engine or of the mark) gives them back too.

export type StreamRun<P> = (prepared: P, ctx: RunContext, onDelta: StreamDeltaSink) => Promise<Extract<Outcome, { kind: 'generation' }>>;

/**
 * `disconnected` fires when the client goes away; `writeDelta` writes one piece (false once the
 * client is gone).
 */
export function streamChannel<P>(
  stream: StreamRun<P>,
  prepared: P,
  disconnected: AbortSignal,
  writeDelta: (text: string) => boolean,
  reservation: OpenReservation,
): AnswerChannel {
  let gate: FirstDeltaGate | undefined;
  const undelivered = () => disconnected.aborted && !gate?.written;
  return {
    async run(ctx, deadline) {
      gate = firstDeltaGate(writeDelta, (delivery) => reservation.markDelivered(delivery), deadline.abort);
      const abortUndelivered = () => {
        if (!gate!.written) deadline.abort(disconnected.reason);
      };
      disconnected.addEventListener('abort', abortUndelivered, { once: true });
      try {
        const outcome = await stream(prepared, ctx, gate.onDelta);
        // The mark committed before anything is captured; one that failed after the engine finished still names its engines.
        await gate.settled().catch((error: unknown) => {
          throw withEngineReport(error, outcome.engines);
        });
        if (undelivered()) throw disconnected.reason;
        return { outcome, note: disconnected.aborted ? 'client_disconnected' : undefined };
      } finally {
        disconnected.removeEventListener('abort', abortUndelivered);
      }
    },
    failureCode: () => (undelivered() ? 'client_disconnected' : undefined),
  };
}
