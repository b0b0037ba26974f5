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
      'With `Accept: text/event-stream`: the answer as server-sent events, sent once every check passed and the units are held (every refusal before that is the JSON error). Each event is `event: <name>` and one `data:` line of JSON, as this schema shows them: `delta` events, then one `done` (charged) or one `error` (nothing charged). Output delivered is output paid for: a client gone after the first `delta` is charged in full (a retry with the same Idempotency-Key then answers the finished call); one gone before any `delta` is not charged. The first `delta` is written only once its delivery is durably recorded: a stream the service drops after it (its process died) is charged in full too, and as its answer was never stored, a retry with the same Idempotency-Key runs again once the lease of the key ran out (409 until then) and is charged for its new answer. Comment lines (`: keep-alive`) come at least every 15 s. A retry with the same Idempotency-Key after `done` gets one `done` event again (`Idempotent-Replayed: true`); while the stream runs, 409 `idempotency_key_in_use`.',
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
