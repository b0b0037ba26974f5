import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { isApiError, type ValidationIssue } from '@/server/domain/errors';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { setProviderKey } from '@/server/domain/providers/set-provider-key';
import { errorText } from '@/scripts/lib/cli-error';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { expectTrpcError, operatorCaller } from './trpc/helpers';

// Provider settings cannot be turned against the service, through the packages file (CLI) and
// the dashboard (tRPC) alike; a moved provider loses its stored key; an API call is not
// redirected to another origin (two ports on 127.0.0.1 are two origins).

process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WGS_PROVIDER_KEY_GUARD_FAKE_KEY = 'sk-guard-fake-0123456789';
resetConfigForTests();

const name = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

async function providerState(provider: string) {
  const prisma = getPrisma();
  return {
    row: await prisma.provider.findUnique({ where: { name: provider }, select: { type: true, baseUrl: true, apiKeyEnv: true } }),
    key: (await prisma.providerKey.count({ where: { provider } })) > 0,
    audits: await prisma.auditLog.count({ where: { targetId: provider } }),
  };
}

function fileWith(provider: string, entry: Record<string, unknown>, slug = name('guard-pkg')) {
  return parsePackagesFile({
    providers: { [provider]: entry },
    packages: [
      {
        slug,
        name: 'Guard',
        quota_units: 10,
        limits: { requests_per_minute: 10, concurrency: 1 },
        operations: { 'text.generate': { engine: `${provider}:model-x`, units: 1, max_output_tokens: 100 } },
      },
    ],
  });
}

/** The CLI's stderr for a refused apply (scripts/cli.ts prints errorText of the error). */
async function refusedApply(file: ReturnType<typeof fileWith>): Promise<string> {
  const error = await applyPackages(getPrisma(), CLI_ACTOR, file).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error('the apply was not refused');
  expect(error.code).toBe('validation_error');
  return errorText(error.message, (error.details?.issues as ValidationIssue[]) ?? []);
}

describe('the packages file', () => {
  it.each([
    [{ type: 'openai', api_key_env: 'DATABASE_URL' }, 'api_key_env', /DATABASE_URL is a variable the service itself reads/],
    [{ type: 'openai', api_key_env: 'SIGNING_SECRET' }, 'api_key_env', /SIGNING_SECRET is a variable the service itself reads/],
    [{ type: 'openai', base_url: 'http://169.254.169.254/' }, 'base_url', /169\.254\.169\.254 is a cloud metadata/],
    [{ type: 'openai-compatible', base_url: 'http://metadata.google.internal/v1' }, 'base_url', /metadata\.google\.internal/],
  ])('%j is refused with one line naming the field, and nothing is written', async (entry, field, why) => {
    const provider = name('bad');
    const slug = name('guard-pkg');
    const stderr = await refusedApply(fileWith(provider, entry, slug));
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^error: providers\\.${provider}\\.${field}: `));
    expect(stderr).toMatch(why);
    expect(await providerState(provider)).toEqual({ row: null, key: false, audits: 0 });
    expect(await getPrisma().package.count({ where: { slug } })).toBe(0);
  });

  it('an existing provider edited to name DATABASE_URL keeps its row as it was', async () => {
    const provider = name('kept');
    await applyPackages(getPrisma(), CLI_ACTOR, fileWith(provider, { type: 'openai', api_key_env: 'WGS_PROVIDER_KEY_GUARD_FAKE_KEY' }));
    const before = await providerState(provider);
    await refusedApply(fileWith(provider, { type: 'openai', api_key_env: 'DATABASE_URL' }));
    expect(await providerState(provider)).toEqual(before);
  });

  it('a changed base_url deletes the stored key (audited); an edit of api_key_env alone keeps it', async () => {
    const provider = name('moved');
    await applyPackages(getPrisma(), CLI_ACTOR, fileWith(provider, { type: 'openai', base_url: 'https://one.example.com/v1' }));
    await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-stored-for-one' });
    const kept = await applyPackages(
      getPrisma(),
      CLI_ACTOR,
      fileWith(provider, { type: 'openai', base_url: 'https://one.example.com/v1', api_key_env: 'WGS_PROVIDER_KEY_GUARD_FAKE_KEY' }),
    );
    expect(kept.providers).toEqual([{ name: provider, status: 'updated' }]);
    expect((await providerState(provider)).key).toBe(true);

    const moved = await applyPackages(
      getPrisma(),
      CLI_ACTOR,
      fileWith(provider, { type: 'openai', base_url: 'https://two.example.com/v1', api_key_env: 'WGS_PROVIDER_KEY_GUARD_FAKE_KEY' }),
    );
    expect(moved.providers).toEqual([{ name: provider, status: 'updated', key_cleared: true }]);
    expect((await providerState(provider)).key).toBe(false);
    const audit = await getPrisma().auditLog.findFirst({ where: { targetId: provider, action: 'provider.key_cleared' } });
    expect(audit?.after).toMatchObject({ key: null, reason: 'base_url changed', base_url: 'https://two.example.com/v1' });
  });
});

describe('the dashboard (tRPC providers.save)', () => {
  it('refuses api_key_env DATABASE_URL and a metadata base_url with one issue on the field; nothing changes', async () => {
    const { caller } = await operatorCaller();
    const provider = name('form');
    for (const [entry, field] of [
      [{ type: 'openai', api_key_env: 'DATABASE_URL' }, 'api_key_env'],
      [{ type: 'openai', base_url: 'http://169.254.169.254/' }, 'base_url'],
      // A member a form never sends is refused, `__proto__` too (tRPC audit: it was dropped in silence).
      [JSON.parse('{"type":"openai","__proto__":{"base_url":"https://evil.example"}}') as { type: string }, 'Unknown field'],
    ] as const) {
      const error = await expectTrpcError(
        caller.providers.save({ name: provider, mode: 'create', entry }),
        'UNPROCESSABLE_CONTENT',
        'validation_error',
      );
      expect(error.message).toMatch(new RegExp(`^${field}: `));
      expect(error.message).not.toContain('\n');
    }
    expect(await providerState(provider)).toEqual({ row: null, key: false, audits: 0 });

    await caller.providers.save({
      name: provider,
      mode: 'create',
      entry: { type: 'openai', api_key_env: 'WGS_PROVIDER_KEY_GUARD_FAKE_KEY' },
    });
    const before = await providerState(provider);
    await expectTrpcError(
      caller.providers.save({ name: provider, mode: 'update', entry: { type: 'openai', api_key_env: 'NEXTAUTH_SECRET' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(await providerState(provider)).toEqual(before);
  });

  it('a changed type or base_url deletes the stored key, audited; the key can be stored again', async () => {
    const { caller } = await operatorCaller();
    const provider = name('form-moved');
    await caller.providers.save({ name: provider, mode: 'create', entry: { type: 'openai', base_url: 'https://one.example.com/v1' } });
    await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-stored-for-one' });
    const moved = await caller.providers.save({
      name: provider,
      mode: 'update',
      entry: { type: 'openai', base_url: 'https://evil.example.net/v1' },
    });
    expect(moved).toEqual({ name: provider, status: 'updated', key_cleared: true });
    expect((await providerState(provider)).key).toBe(false);
    expect(await getPrisma().auditLog.count({ where: { targetId: provider, action: 'provider.key_cleared' } })).toBe(1);

    await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-stored-again' });
    const retyped = await caller.providers.save({
      name: provider,
      mode: 'update',
      entry: { type: 'openai-compatible', base_url: 'https://evil.example.net/v1' },
    });
    expect(retyped).toEqual({ name: provider, status: 'updated', key_cleared: true });
    expect((await providerState(provider)).key).toBe(false);
  });
});

describe('redirects', () => {
  let target: FakeOpenAi;
  let redirector: Server;
  let redirectorUrl: string;
  beforeAll(async () => {
    target = await startFakeOpenAi();
    // Another port is another origin: every call is sent on to the real fake, there.
    redirector = createServer((request, response) => {
      request.resume();
      response.writeHead(307, { location: `${target.baseUrl}/chat/completions` });
      response.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    redirector.close();
    await target.close();
  });

  it.each(['openai', 'openai-compatible'])(
    'type %s: an API call redirected to another origin is not followed: 503, nothing charged',
    async (type) => {
      target.reset();
      const { key, id } = await createTestKey({
        providers: { [`moved-${type}`]: { type, base_url: redirectorUrl, api_key_env: 'WGS_PROVIDER_KEY_GUARD_FAKE_KEY' } },
        operations: { 'text.generate': { engine: `moved-${type}:model-x`, units: 1, max_output_tokens: 50 } },
      });
      const before = await remainingUnits(id);
      const result = await call(api, '/v1/text/generate', { input: 'hi' }, { key });
      expectEnvelope(result, 503, 'provider_unavailable');
      expect(target.callCount).toBe(0);
      expect(await remainingUnits(id)).toBe(before);
    },
  );
});
