import { z } from 'zod';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import { resolveEngine } from './resolve-engine';
import { operationsOf } from '../../contract/provider-types';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
import { ApiError } from '../errors';
import type { Operation } from '../operations';
import { zodValidationError } from '../zod-issues';
import { describeTestFailure, describeTestSuccess } from './describe-test-outcome';
import { modelsInUse } from './models-in-use';
import { apiKeyEnvProblem } from './provider-guard';
import { PROVIDER_NAME, PROVIDER_NAME_RULE } from '../../contract/package-schema';
import { callForTest, testOperationOf } from './provider-test-call';
import { environmentVariable } from '../../config/environment';

// "Test" on the Providers page: one real call through the engine the packages would use (its
// key, base URL and client), with a short deadline. Audited, as it spends the operator's money
// with the provider; at most TESTS_PER_MINUTE per provider, counted in the audit log so every
// instance agrees. The circuit breaker is left alone: a test says nothing of customer traffic.

export const TEST_TIMEOUT_MS = 10_000;
export const TESTS_PER_MINUTE = 5;

export const testProviderInput = z.strictObject({
  provider: z.string().regex(PROVIDER_NAME, PROVIDER_NAME_RULE),
  model: z
    .string()
    .regex(/^[A-Za-z0-9._/:-]{1,120}$/, 'a model id is 1 to 120 letters, digits and . _ / : -')
    .optional(),
});

export interface ProviderTestResult {
  ok: boolean;
  operation: Operation;
  model: string;
  /** Milliseconds until the answer (or the failure); null when no call was made. */
  duration_ms: number | null;
  /** The outcome in plain words; never a provider's own text or a key. */
  message: string;
}

export async function testProvider(db: PrismaClient, sqlDb: SqlDb, actor: Actor, input: unknown): Promise<ProviderTestResult> {
  const parsed = testProviderInput.safeParse(input);
  if (!parsed.success) throw zodValidationError(parsed.error, input);
  const { provider: name } = parsed.data;
  const provider = await db.provider.findUnique({ where: { name }, select: { type: true, apiKeyEnv: true } });
  if (!provider) throw new ApiError('not_found', { message: `No provider named ${name}.` });

  const operation = testOperationOf(operationsOf(provider.type));
  if (!operation) {
    throw ApiError.validation([
      { path: 'provider', code: 'unsupported_type', message: `provider: type "${provider.type}" is not one this version can call` },
    ]);
  }
  const model = parsed.data.model ?? (await modelsInUse(sqlDb)).get(name)?.[0];
  if (!model) {
    throw ApiError.validation([
      { path: 'model', code: 'required', message: 'model: type the model id to test with (no package names one for this provider yet)' },
    ]);
  }
  await refuseTooManyTests(db, name);

  const result = await runTest(db, name, provider, operation, model);
  await recordAudit(db, actor, { action: 'provider.test', targetType: 'provider', targetId: name, after: result });
  return result;
}

async function refuseTooManyTests(db: PrismaClient, name: string): Promise<void> {
  const recent = await db.auditLog.count({
    where: { action: 'provider.test', targetType: 'provider', targetId: name, createdAt: { gte: new Date(Date.now() - 60_000) } },
  });
  if (recent >= TESTS_PER_MINUTE) {
    throw new ApiError('rate_limited', {
      message: `At most ${TESTS_PER_MINUTE} tests a minute per provider: try again in a minute.`,
      retryAfter: 60,
    });
  }
}

async function runTest(
  db: PrismaClient,
  name: string,
  { type, apiKeyEnv }: { type: string; apiKeyEnv: string | null },
  operation: Operation,
  model: string,
): Promise<ProviderTestResult> {
  // A refused row is no test: no call is made, and whether its variable is set is not looked at.
  const refused = apiKeyEnv ? apiKeyEnvProblem(type, apiKeyEnv) : undefined;
  if (refused) return { ok: false, operation, model, duration_ms: null, message: `Refused: api_key_env ${refused}.` };
  const stored = await db.providerKey.count({ where: { provider: name } });
  if (stored === 0 && apiKeyEnv && !environmentVariable(apiKeyEnv)) {
    const message = `No key: set one on this page, or set ${apiKeyEnv} in the server's environment.`;
    return { ok: false, operation, model, duration_ms: null, message };
  }
  const signal = AbortSignal.timeout(TEST_TIMEOUT_MS);
  const started = performance.now();
  try {
    await callForTest(await resolveEngine(`${name}:${model}`), operation, signal);
    const duration = Math.round(performance.now() - started);
    return { ok: true, operation, model, duration_ms: duration, message: describeTestSuccess(duration) };
  } catch (error) {
    const duration = Math.round(performance.now() - started);
    return { ok: false, operation, model, duration_ms: duration, message: describeTestFailure(error, TEST_TIMEOUT_MS, signal.aborted) };
  }
}
