import type { CodeGenerateRequest, TextGenerateRequest } from '../../contract/generation';
import type { SqlDb } from '../../db/client';
import type { CodeTask, TextTask } from '../../providers/engine';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { operationSettings, PackageSettingsCheck } from './package-settings';
import { callEngine, type EngineTrace } from './call-engine';

export interface Prepared<T> {
  task: T;
  /** The package's engine, or its ordered fallbacks. */
  engine: string | readonly string[];
  units: number;
}

export function prepareTextGenerate(body: TextGenerateRequest, key: AuthenticatedKey): Prepared<TextTask> {
  const settings = operationSettings(key, 'text.generate');
  const check = new PackageSettingsCheck();
  const outputFormat = check.value('output_format', body.output_format, settings.output_formats, 'text');
  check.done();
  return {
    task: { input: body.input, context: body.context, outputFormat, maxOutputTokens: settings.max_output_tokens },
    engine: settings.engine,
    units: settings.units,
  };
}

export function prepareCodeGenerate(body: CodeGenerateRequest, key: AuthenticatedKey): Prepared<CodeTask> {
  const settings = operationSettings(key, 'code.generate');
  return {
    task: {
      input: body.input,
      language: body.language,
      requirements: body.requirements ?? [],
      maxOutputTokens: settings.max_output_tokens,
    },
    engine: settings.engine,
    units: settings.units,
  };
}

export async function generateText(
  db: SqlDb,
  prepared: Prepared<TextTask>,
  signal: AbortSignal,
  trace?: EngineTrace,
): Promise<{ text: string }> {
  // The customer's output only; the engine's finish reason and token usage stay with the engine.
  const { text } = await callEngine(db, prepared.engine, (engine) => engine.generateText(prepared.task, signal), {
    signal,
    trace,
    operation: 'text.generate',
  });
  return { text };
}

export async function generateCode(
  db: SqlDb,
  prepared: Prepared<CodeTask>,
  signal: AbortSignal,
  trace?: EngineTrace,
): Promise<{ code: string; explanation: string }> {
  const { code, explanation } = await callEngine(db, prepared.engine, (engine) => engine.generateCode(prepared.task, signal), {
    signal,
    trace,
    operation: 'code.generate',
  });
  return { code, explanation };
}
