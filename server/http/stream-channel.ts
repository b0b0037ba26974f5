import type { OpenReservation } from '../domain/billing/reserve';
import { ApiError } from '../domain/errors';
import { engineFailureOf, withEngineReport, type EngineReport } from '../domain/generation/call-engine';
import { interruptedMessage, type StreamEnding } from '../domain/generation/stream-endings';
import type { StreamDeltaSink } from '../domain/generation/text-and-code';
import type { AnswerChannel, Ran } from './answer-lifecycle';
import { deltaEventText, errorEventText, whenClientGone } from './event-stream';
import { firstDeltaGate, type FirstDeltaGate } from './first-delta-gate';
import type { Outcome, RunContext } from './route-context';

// The operation answered as an event stream (event-stream.ts): its pieces reach the client as they
// come, and `done` only after the capture committed. Output delivered is output paid for
// (CONTRACT.md §8): the hold is marked delivered (one durable statement) before the first delta is
// written, so that even a process that dies after it leaves a hold the sweeper captures. Once a
// delta was written the call is charged however it ends: a client gone leaves it running to its end
// (within the deadline) and charged as if `done` had reached it; a provider failing, the deadline,
// or a whole text that fails its output format end it with `output_interrupted`, charged too, the
// deltas written and that event stored for replays. Before any delta was written nothing is charged:
// a client gone aborts the call, and a failure (of the engine or of the mark) gives the units back.

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
  const delivered = () => (gate?.written.length ?? 0) > 0;
  const undelivered = () => disconnected.aborted && !delivered();
  return {
    async run(ctx, deadline) {
      // Should the request never settle, its key replays the first delta, ended as interrupted. A
      // client already gone is never marked delivered: nothing could be written to it.
      const mark = (delivery: Parameters<OpenReservation['markDelivered']>[0], first: string) =>
        disconnected.aborted
          ? Promise.reject(disconnected.reason)
          : reservation.markDelivered(delivery, interrupted([first], 'stream_interrupted', ctx.requestId).stored);
      const open = firstDeltaGate(writeDelta, mark, deadline.abort);
      gate = open;
      const abortUndelivered = () => {
        if (!delivered()) deadline.abort(disconnected.reason);
      };
      // A client may be gone before the run begins (a half-close or a reset while the request was
      // checked and its units held), and a signal already aborted fires no listener added to it: its
      // deadline is aborted at once, so no engine is called (call-engine.ts).
      whenClientGone(disconnected, abortUndelivered);
      try {
        let outcome: Extract<Outcome, { kind: 'generation' }>;
        try {
          outcome = await stream(prepared, ctx, open.onDelta);
        } catch (thrown) {
          await open.settled().catch(() => {}); // pieces waiting for the mark are written once it commits
          if (!delivered()) throw thrown;
          const { engines, ending } = engineFailureOf(thrown);
          return chargedEnding(open.written, ending ?? 'provider_failed', engines, ctx.requestId);
        }
        // The mark committed before anything is captured; one that failed wrote nothing, and still names the engines.
        await open.settled().catch((error: unknown) => {
          throw withEngineReport(error, outcome.engines);
        });
        if (undelivered()) throw withEngineReport(disconnected.reason, outcome.engines);
        return { outcome, note: disconnected.aborted ? 'client_disconnected' : undefined };
      } finally {
        disconnected.removeEventListener('abort', abortUndelivered);
      }
    },
    failureCode: () => (undelivered() ? 'client_disconnected' : undefined),
    delivered,
  };
}

/** A stream that ended without `done` after `written` was delivered: charged, its answer the text delivered. */
function chargedEnding(written: readonly string[], ending: StreamEnding, engines: EngineReport | undefined, requestId: string): Ran {
  const { error, stored } = interrupted(written, ending, requestId);
  return {
    outcome: { kind: 'generation', output: stored.output, engines: engines ?? { tried: [] } },
    note: ending,
    interrupted: { error, events: stored.events },
  };
}

/** The `output_interrupted` error ending `written`, and the answer stored for replays: the text and the events. */
function interrupted(written: readonly string[], ending: StreamEnding, requestId: string) {
  const error = new ApiError('output_interrupted', { message: interruptedMessage(ending) });
  const events = written.map(deltaEventText).join('') + errorEventText(error, requestId);
  return { error, stored: { output: { text: written.join('') }, events } };
}
