import type { OpenReservation } from '../../domain/billing/reserve';
import type { ApiError } from '../../domain/errors';
import { observeStreamCharged } from '../../observability/observe-request';
import { noteError } from '../../observability/request-record';
import { runAndSettle } from '../answer-lifecycle';
import { eventStreamHeaders, KEEP_ALIVE_MS, whenClientGone } from '../event-stream';
import type { V1Steps } from './openai-route';
import type { RouteContext } from '../route-context';
import { toApiError } from '../responses';
import { streamChannel } from '../stream-channel';
import { openAIError, toOpenAIErrorResponse } from './openai-errors';
import { withHeaders } from './openai-headers';

// A chat completion streamed as OpenAI streams it: `data: {chat.completion.chunk}` events, then
// `data: [DONE]`. It is the /v1 stream's lifecycle (stream-channel.ts, CONTRACT.md §8): the first
// piece is written only once the hold is durably marked delivered, and output delivered is output
// paid for. The answer's status and headers leave with its first piece: a failure before any piece
// is an ordinary error answer (503, nothing charged), which the SDKs retry; after it, a failure
// arrives as `data: {"error": …}`, which the SDKs raise, and the call stays charged once.

/** The `data:` of an error ending a stream, in OpenAI's shape (the SDKs raise it). */
export const errorChunk = (error: ApiError) => JSON.stringify({ error: openAIError(error).body.error });

/** The pieces of one streamed answer, each one event's data. */
export interface ChunkStream {
  /** A piece of the answer's text. */
  delta(text: string): string;
  /** What follows the last piece once the call is settled: the finish chunk, the usage chunk when asked. */
  finish(stored: string): string[];
}

const encoder = new TextEncoder();

export function streamAnswer<P>(
  ctx: RouteContext,
  reservation: OpenReservation,
  steps: V1Steps<P>,
  prepared: P,
  chunks: ChunkStream,
  headers: Record<string, string>,
): Promise<Response> {
  const disconnect = new AbortController();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const clientGone = () => {
    clearInterval(keepAlive);
    if (!disconnect.signal.aborted) disconnect.abort(new DOMException('The client closed the stream.', 'AbortError'));
  };
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: clientGone });
  // Until the first piece the answer is not handed over, so its body cannot see the client go: the
  // request's own signal does (a client gone then is charged nothing, and the engine call is aborted).
  whenClientGone(ctx.request.signal, clientGone);
  let answer!: (response: Response) => void;
  const answered = new Promise<Response>((resolve) => (answer = resolve));
  let opened = false;
  const send = (text: string): boolean => {
    if (disconnect.signal.aborted) return false;
    controller.enqueue(encoder.encode(text));
    if (!opened) {
      opened = true;
      keepAlive = setInterval(() => send(': keep-alive\n\n'), KEEP_ALIVE_MS);
      answer(new Response(body, { status: 200, headers: eventStreamHeaders(ctx.requestId, headers) }));
    }
    return true;
  };
  const event = (data: string) => send(`data: ${data}\n\n`);
  const channel = streamChannel(steps.stream!, prepared, disconnect.signal, (text) => event(chunks.delta(text)), reservation);
  const fail = (error: unknown) => {
    // Before any piece, an error answer: its call took its point of the minute as a JSON one does.
    if (!opened) return answer(withHeaders(toOpenAIErrorResponse(error, ctx.requestId, ctx.record), headers));
    const apiError = toApiError(error, ctx.requestId);
    noteError(ctx.record, apiError);
    event(errorChunk(apiError));
  };
  ctx.record.streamSettled = runAndSettle(ctx, reservation, channel)
    .then((settled) => {
      observeStreamCharged(ctx.record);
      if (settled.interrupted) return fail(settled.interrupted); // charged: the stream ends with output_interrupted
      for (const data of chunks.finish(settled.body)) event(data);
      event('[DONE]');
    }, fail)
    .finally(() => {
      clearInterval(keepAlive);
      if (opened && !disconnect.signal.aborted) controller.close();
    });
  return answered;
}
