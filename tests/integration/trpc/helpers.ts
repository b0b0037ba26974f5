import { randomUUID } from 'node:crypto';
import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import { getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { createOperator } from '@/server/domain/operators/create-operator';
import type { OperatorRole } from '@/server/contract/dashboard/roles';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { createCaller } from '@/server/trpc/app-router';
import { createInnerContext } from '@/server/trpc/context';

/** A caller signed in as a real operator (created in the database, an owner unless told), as the dashboard would be. */
export async function operatorCaller(role: OperatorRole = 'owner') {
  const email = `op-${randomUUID().slice(0, 8)}@example.com`;
  const operator = await createOperator(getSqlDb(), CLI_ACTOR, { email, password: 'a long enough password', role });
  const session = { operatorId: operator.id, email, role: operator.role, expires: new Date(Date.now() + 3_600_000).toISOString() };
  return { caller: createCaller(createInnerContext(session)), operator };
}

export const anonymousCaller = () => createCaller(createInnerContext(null));

export function definition(slug: string, quota = 100) {
  return {
    slug,
    name: `Package ${slug}`,
    quota_units: quota,
    limits: { requests_per_minute: 60, concurrency: 2 },
    operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['text'] } },
  };
}

export async function seedPackage(slug: string, quota = 100) {
  await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile({ packages: [definition(slug, quota)] }));
}

export const uniqueSlug = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

/** The common start of a dashboard test: an operator's caller and a fresh package (unique slug, prefixed). */
export async function operatorWithPackage(prefix: string, quota = 100) {
  const { caller, operator } = await operatorCaller();
  const slug = uniqueSlug(prefix);
  await seedPackage(slug, quota);
  return { caller, operator, slug };
}

/** Asserts a rejected call carries the tRPC code (and the catalog code, when given). */
export async function expectTrpcError(call: Promise<unknown>, code: TRPCError['code'], apiCode?: string) {
  const error = await call.then(
    () => {
      throw new Error(`expected ${code}, but the call succeeded`);
    },
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe(code);
  if (apiCode) expect(((error as TRPCError).cause as { code?: string } | undefined)?.code).toBe(apiCode);
  return error as TRPCError;
}

let clock = 0;

/** A usage event as the API pipeline writes it: now, and always later than the previous one. */
export async function usage(
  apiKeyId: string,
  outcome: 'succeeded' | 'failed',
  units: number,
  operation = 'text.generate',
  errorCode = 'provider_unavailable',
) {
  const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: apiKeyId } });
  await getPrisma().usageEvent.create({
    data: {
      apiKeyId,
      packageVersionId: key.packageVersionId,
      operation,
      engine: 'local',
      outcome,
      units,
      errorCode: outcome === 'failed' ? errorCode : null,
      requestId: `req_${randomUUID()}`,
      durationMs: 12,
      createdAt: new Date((clock = Math.max(clock + 1, Date.now()))),
    },
  });
}
