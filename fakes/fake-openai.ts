import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A fake OpenAI-compatible server on 127.0.0.1 (port 0) for provider tests. It implements
// POST /v1/chat/completions with switchable behaviour, counts calls and records what it got. A
// request with `stream: true` is answered as OpenAI streams: chat.completion.chunk events, one
// word each, then `data: [DONE]`; `break` and `stall` cut such a stream after some words, `stream-error` ends it
// with an error event. Usage is
// reported as OpenAI does (a stream's only when `stream_options.include_usage` asks), or never
// (`setReportsUsage(false)`, as some OpenAI-compatible servers). A word counts as a token: an answer
// longer than the request's max_tokens (or max_completion_tokens) stops there, its finish reason
// 'length'. `setPlanOf` lets a caller (npm run chaos) choose the mode and reply of each call itself.

export type FakeMode =
  | { kind: 'ok' }
  | { kind: 'slow'; ms: number }
  | { kind: 'status'; status: number; message?: string }
  | { kind: 'garbage' }
  | { kind: 'hang' }
  /** Streams `after` words, then drops the connection (`pauseMs` later: the client has read what came). */
  | { kind: 'break'; after: number; pauseMs?: number }
  /** Streams `after` words, then sends nothing more until the client goes away (or `resume()`). */
  | { kind: 'stall'; after: number }
  /** Each streamed word `ms` after the one before (the first too); a JSON answer after `ms`. */
  | { kind: 'drip'; ms: number }
  /** The answer cut off half-way: a JSON body or a stream's words, then the connection dropped (`pauseMs` later: the client has read what came). */
  | { kind: 'truncate'; pauseMs?: number }
  /** Streams `after` words, then an error event in the stream (as OpenAI's servers send one), and ends. */
  | { kind: 'stream-error'; after: number };

/** What one call gets instead of the fake's mode and reply. */
export interface CallPlan {
  mode?: FakeMode;
  reply?: string;
}

export interface FakeCall {
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** Text the fake puts into its error bodies: it must never reach a customer. */
export const FAKE_ERROR_TEXT = 'FAKE-UPSTREAM-SECRET-DIAGNOSTIC: database shard 7 exploded';

export interface FakeOpenAi {
  /** e.g. http://127.0.0.1:41234/v1 */
  baseUrl: string;
  port: number;
  calls: FakeCall[];
  readonly callCount: number;
  /** The Authorization header of the most recent call. */
  readonly lastAuthorization: string | undefined;
  setMode(mode: FakeMode): void;
  /** The assistant message content for `ok`/`slow`; by default text, or {code, explanation} JSON when json mode is asked. */
  setReply(content: string | undefined): void;
  /** Decides each call's mode and reply (undefined: the fake's own); `reset()` forgets it. */
  setPlanOf(planOf: ((call: FakeCall) => CallPlan | undefined) | undefined): void;
  /** false: no usage in any answer, whatever the request asks (reset: true). */
  setReportsUsage(reports: boolean): void;
  /** The token counts every answer reports instead of the fake's own (undefined: its own; reset: its own). */
  setUsage(usage: Usage | undefined): void;
  /** Streamed answers whose client closed the connection before the stream's end. */
  readonly streamsAbandoned: number;
  /** Streamed answers read to their end (the finish chunk and `[DONE]` written). */
  readonly streamsFinished: number;
  /** Lets every stalled stream go on: its remaining words, then the finish chunk with its usage. */
  resume(): void;
  /** How many requests are being handled right now, and the most ever at once. */
  readonly active: number;
  readonly maxActive: number;
  reset(): void;
  close(): Promise<void>;
}

type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens: number };
};

function completion(model: string, content: string, usage: Usage | undefined, finish = 'stop') {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null, usage?: unknown) {
  const choice = { index: 0, delta, logprobs: null, finish_reason: finish };
  const body = {
    id: 'chatcmpl-stream',
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [choice],
    ...(usage ? { usage } : {}),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The content in word-sized pieces (each word with the blanks after it). */
export function wordsOf(content: string): string[] {
  return content.match(/\s*\S+\s*|\s+/g) ?? [];
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  let mode: FakeMode = { kind: 'ok' };
  let reply: string | undefined;
  let planOf: ((call: FakeCall) => CallPlan | undefined) | undefined;
  let reportsUsage = true;
  let usageOverride: Usage | undefined;
  const usageOf = (completionTokens: number): Usage =>
    usageOverride ?? { prompt_tokens: 5, completion_tokens: completionTokens, total_tokens: 5 + completionTokens };
  let active = 0;
  let maxActive = 0;
  let streamsAbandoned = 0;
  let streamsFinished = 0;
  const stalled = new Set<() => void>();
  const calls: FakeCall[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer(async (request, response) => {
    active++;
    maxActive = Math.max(maxActive, active);
    response.on('close', () => {
      active--;
      hanging.delete(response);
    });
    const body = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const call: FakeCall = { path, authorization: request.headers.authorization, body };
    calls.push(call);
    const plan = planOf?.(call);

    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    const current = plan?.mode ?? mode;
    const model = (body as { model?: string })?.model ?? 'unknown';
    const wantsJson = (body as { response_format?: { type?: string } })?.response_format?.type === 'json_object';
    const whole =
      plan?.reply ??
      reply ??
      (wantsJson
        ? JSON.stringify({ code: 'export const answer = 42;', explanation: 'A constant holding the answer.' })
        : `fake answer from ${model}`);
    // A word is a token here: an answer longer than the request's cap stops at it, as 'length'.
    const { max_tokens, max_completion_tokens } = (body ?? {}) as { max_tokens?: unknown; max_completion_tokens?: unknown };
    const cap = max_completion_tokens ?? max_tokens;
    const cutAtCap = typeof cap === 'number' && cap < wordsOf(whole).length;
    const content = cutAtCap ? wordsOf(whole).slice(0, cap).join('') : whole;
    const finish = cutAtCap ? 'length' : 'stop';

    const streamed = (body as { stream?: unknown })?.stream === true;
    const cutStream =
      current.kind === 'break' || current.kind === 'stall' || current.kind === 'truncate' || current.kind === 'stream-error';
    if (streamed && (current.kind === 'ok' || current.kind === 'drip' || cutStream)) {
      const pieces = wordsOf(content);
      const cutAfter = current.kind === 'truncate' ? Math.floor(pieces.length / 2) : 'after' in current ? current.after : pieces.length;
      const count = Math.min(cutAfter, pieces.length);
      let ended = false;
      response.on('close', () => {
        if (!ended) streamsAbandoned++;
      });
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      response.write(chunk(model, { role: 'assistant', content: '' }, null));
      for (const piece of pieces.slice(0, count)) {
        if (current.kind === 'drip') await new Promise((resolve) => setTimeout(resolve, current.ms));
        if (response.destroyed) return;
        response.write(chunk(model, { content: piece }, null));
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (current.kind === 'stream-error') {
        ended = true;
        response.end(`data: ${JSON.stringify({ error: { message: FAKE_ERROR_TEXT, type: 'server_error', code: 'fake_failure' } })}\n\n`);
        return;
      }
      if (current.kind === 'break' || current.kind === 'truncate') {
        if (current.kind === 'break' && current.pauseMs) await new Promise((resolve) => setTimeout(resolve, current.pauseMs));
        ended = true;
        response.destroy();
        return;
      }
      if (current.kind === 'stall') {
        hanging.add(response);
        await new Promise<void>((resolve) => {
          stalled.add(resolve);
          response.on('close', () => stalled.delete(resolve));
        });
        if (response.destroyed) return;
        for (const piece of pieces.slice(count)) response.write(chunk(model, { content: piece }, null));
      }
      const asked = (body as { stream_options?: { include_usage?: unknown } })?.stream_options?.include_usage === true;
      response.write(chunk(model, {}, finish, reportsUsage && asked ? usageOf(pieces.length) : undefined));
      ended = true;
      streamsFinished++;
      response.end('data: [DONE]\n\n');
      return;
    }

    switch (current.kind) {
      case 'break':
      case 'stream-error':
      case 'stall':
      case 'ok':
      case 'drip':
      case 'slow': {
        if (current.kind === 'slow' || current.kind === 'drip') await new Promise((resolve) => setTimeout(resolve, current.ms));
        if (response.destroyed) return;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(completion(model, content, reportsUsage ? usageOf(7) : undefined, finish)));
        return;
      }
      case 'truncate': {
        const whole = Buffer.from(JSON.stringify(completion(model, content, reportsUsage ? usageOf(7) : undefined, finish)));
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(whole.length) });
        response.write(whole.subarray(0, Math.floor(whole.length / 2)));
        if (current.pauseMs) await new Promise((resolve) => setTimeout(resolve, current.pauseMs));
        response.destroy();
        return;
      }
      case 'status': {
        // retry-after-ms keeps the client's retries fast; retry-after is what the engine reports.
        response.writeHead(current.status, { 'content-type': 'application/json', 'retry-after-ms': '5', 'retry-after': '1' });
        response.end(
          JSON.stringify({
            error: { message: current.message ?? FAKE_ERROR_TEXT, type: 'server_error', code: 'fake_failure' },
          }),
        );
        return;
      }
      case 'garbage': {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"id": "chatcmpl-x", "choices": [ {{{ not json at all');
        return;
      }
      case 'hang':
        hanging.add(response);
        return; // never answers; closed by the client's timeout or by close()
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    calls,
    get callCount() {
      return calls.filter((c) => c.path === '/v1/chat/completions').length;
    },
    get lastAuthorization() {
      return calls[calls.length - 1]?.authorization;
    },
    get active() {
      return active;
    },
    get maxActive() {
      return maxActive;
    },
    get streamsAbandoned() {
      return streamsAbandoned;
    },
    get streamsFinished() {
      return streamsFinished;
    },
    resume() {
      for (const resolve of stalled) resolve();
      stalled.clear();
    },
    setMode(next) {
      mode = next;
    },
    setReply(content) {
      reply = content;
    },
    setPlanOf(next) {
      planOf = next;
    },
    setReportsUsage(reports) {
      reportsUsage = reports;
    },
    setUsage(usage) {
      usageOverride = usage;
    },
    reset() {
      calls.length = 0;
      mode = { kind: 'ok' };
      reply = undefined;
      planOf = undefined;
      reportsUsage = true;
      usageOverride = undefined;
      maxActive = active;
      streamsAbandoned = 0;
      streamsFinished = 0;
    },
    async close() {
      for (const response of hanging) response.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
