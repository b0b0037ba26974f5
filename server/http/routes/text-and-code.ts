import {
  codeGenerateRequest,
  codeGenerateResponse,
  textGenerateRequest,
  textGenerateResponse,
  textStreamEvent,
} from '../../contract/generation';
import { getSqlDb } from '../../db/client';
import { generateCode, generateText, prepareCodeGenerate, prepareTextGenerate, streamText } from '../../domain/generation/text-and-code';
import { definePostRoute } from '../pipeline';
import { generated } from '../route-context';

export const textGenerateRoute = definePostRoute({
  path: '/v1/text/generate',
  operationId: 'textGenerate',
  summary: 'Generate text',
  response: { status: 200, schema: textGenerateResponse, description: 'Generation result.' },
  eventStream: {
    event: textStreamEvent,
    description:
      'With `Accept: text/event-stream`: the answer as server-sent events, sent once every check passed and the units are held (every refusal before that is the JSON error). Each event is `event: <name>` and one `data:` line of JSON, as this schema shows them: `delta` events, then one `done` (charged) or one `error`. Before the first `delta` nothing is charged: a failure ends the stream with `error` `provider_unavailable` (the Idempotency-Key is free for a retry) and a client gone aborts the call. Output delivered is output paid for: once the first `delta` was written the call is charged in full, once, however it ends: a client gone (the call runs to its end), the provider failing, the request deadline, or text that fails `output_format` (JSON that does not parse, whitespace alone); every such ending but a finished one is `error` `output_interrupted`, whose message says the units were charged. The first `delta` is written only once its delivery is durably recorded, so a stream the service drops after it (its process died) is charged too. A charged call keeps its Idempotency-Key and is never run again: a retry after `done` gets one `done` event again (the JSON result without the stream Accept header); after `output_interrupted`, the same `delta` events and `error` event (the JSON Generation result of the text delivered without it); after the service died mid-stream, 409 until the key lease ran out, then the first `delta` and `output_interrupted` (or its Generation result). Replays carry `Idempotent-Replayed: true`; while the stream runs, 409 `idempotency_key_in_use`. Comment lines (`: keep-alive`) come at least every 15 s.',
  },
  scope: 'text.generate',
  schema: textGenerateRequest,
  prepare: (body, ctx) => prepareTextGenerate(body, ctx.key),
  charge: (prepared) => ({ operation: 'text.generate', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => generated(await generateText(getSqlDb(), prepared, ctx.signal)),
  stream: async (prepared, ctx, onDelta) => generated(await streamText(getSqlDb(), prepared, ctx.signal, onDelta)),
});

// No `stream`: code.generate answers JSON whatever the Accept header asks (its answer is one JSON object).
export const codeGenerateRoute = definePostRoute({
  path: '/v1/code/generate',
  operationId: 'codeGenerate',
  summary: 'Analyze or generate code (never executed)',
  response: { status: 200, schema: codeGenerateResponse, description: 'Generation result.' },
  scope: 'code.generate',
  schema: codeGenerateRequest,
  prepare: (body, ctx) => prepareCodeGenerate(body, ctx.key),
  charge: (prepared) => ({ operation: 'code.generate', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => generated(await generateCode(getSqlDb(), prepared, ctx.signal)),
});
