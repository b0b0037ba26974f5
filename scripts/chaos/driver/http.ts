import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Attempt } from '../history';

// One HTTP request as a client sends it, with the ways a client can leave on purpose: before the
// answer, once a stream's head arrived (before any delta), after the first delta, or half-way
// through a body it sends. What reached the client is recorded as the run's Attempt.

export type HangUp = 'before-answer' | 'before-delta' | 'after-delta' | 'mid-body';

export interface Outgoing {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Read the answer as server-sent events. */
  stream?: boolean;
  hangUp?: HangUp;
  /** For `before-answer`: how long after sending the client gives up waiting. */
  hangUpAfterMs?: number;
  timeoutMs: number;
}

export interface Answer extends Attempt {
  headers: Record<string, string | string[] | undefined>;
}

/** Reads `event:`/`data:` blocks from the stream into the attempt as they come. */
function readEvents(response: IncomingMessage, attempt: Answer, onDelta: () => void): void {
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const lines = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines.find((line) => line.startsWith('data: '))?.slice(6);
      if (!event || data === undefined) continue;
      if (event === 'delta') {
        attempt.deltas!.push(String((JSON.parse(data) as { text: unknown }).text));
        onDelta();
      } else if (event === 'done' || event === 'error') {
        attempt.ending = event;
        attempt.endingData = data;
      }
    }
  });
}

function readBody(response: IncomingMessage, attempt: Answer): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => (attempt.body = Buffer.concat(chunks).toString('utf8')));
}

/** Sends `outgoing` and resolves with what came back; never rejects (a failure is recorded). */
export function send(outgoing: Outgoing, instance: string, clock: () => number): Promise<Answer> {
  const attempt: Answer = { startedAt: clock(), endedAt: 0, instance, headers: {} };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (failure) attempt.failure = failure;
      if (attempt.deltas && !attempt.ending && attempt.status === 200) attempt.ending = 'cut';
      attempt.endedAt = clock();
      request.destroy();
      resolve(attempt);
    };
    const leave = (why: HangUp) => finish(`client hung up ${why}`);
    const timer = setTimeout(() => finish('client timeout'), outgoing.timeoutMs);
    const request = httpRequest(outgoing.url, { method: outgoing.method, headers: outgoing.headers, agent: false });
    request.on('error', (error) => finish(`network: ${(error as NodeJS.ErrnoException).code ?? error.message}`));
    request.on('response', (response) => {
      attempt.status = response.statusCode;
      attempt.headers = response.headers;
      attempt.requestId = response.headers['x-request-id'] as string | undefined;
      attempt.replayed = response.headers['idempotent-replayed'] === 'true' || undefined;
      const streamed = outgoing.stream && String(response.headers['content-type']).startsWith('text/event-stream');
      response.on('error', () => finish('network: answer cut'));
      response.on('aborted', () => finish('network: answer cut'));
      if (streamed) {
        attempt.deltas = [];
        readEvents(response, attempt, () => outgoing.hangUp === 'after-delta' && leave('after-delta'));
        // Once the head is in: what came with it (a delta already written) is read first, and counts.
        if (outgoing.hangUp === 'before-delta') setImmediate(() => leave('before-delta'));
      } else readBody(response, attempt);
      response.on('end', () => finish(response.complete ? undefined : 'network: answer cut'));
    });
    writeBody(request, outgoing, leave);
  });
}

function writeBody(request: ReturnType<typeof httpRequest>, outgoing: Outgoing, leave: (why: HangUp) => void): void {
  const body = outgoing.body ?? Buffer.alloc(0);
  if (outgoing.hangUp === 'mid-body') {
    request.setHeader('content-length', String(body.length));
    request.write(body.subarray(0, Math.floor(body.length / 2)), () => setTimeout(() => leave('mid-body'), 50));
    return;
  }
  request.end(body);
  if (outgoing.hangUp === 'before-answer') setTimeout(() => leave('before-answer'), outgoing.hangUpAfterMs ?? 0);
}
