import { codeGenerateRequest, textGenerateRequest } from '../../contract/generation';
import {
  generateCode,
  generateText,
  prepareCodeGenerate,
  prepareTextGenerate,
} from '../../domain/generation/text-and-code';
import { definePostRoute } from '../pipeline';

export const textGenerateRoute = definePostRoute({
  scope: 'text.generate',
  schema: textGenerateRequest,
  prepare: (body, ctx) => prepareTextGenerate(body, ctx.key),
  charge: (prepared) => ({ operation: 'text.generate', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => ({ kind: 'generation', output: await generateText(prepared, ctx.signal, ctx.engines) }),
});

export const codeGenerateRoute = definePostRoute({
  scope: 'code.generate',
  schema: codeGenerateRequest,
  prepare: (body, ctx) => prepareCodeGenerate(body, ctx.key),
  charge: (prepared) => ({ operation: 'code.generate', units: prepared.units, engine: prepared.engine }),
  run: async (prepared, ctx) => ({ kind: 'generation', output: await generateCode(prepared, ctx.signal, ctx.engines) }),
});
