import { beforeEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { isApiError } from '@/server/domain/errors';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { listProviders } from '@/server/domain/providers/list-providers';
import { setProviderKey } from '@/server/domain/providers/set-provider-key';
import { forgetProviderEngines } from '@/server/domain/providers/resolve-engine';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { anonymousCaller, expectTrpcError, operatorCaller } from './trpc/helpers';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Provider keys set without a redeploy: encrypted at rest, used before the environment's,
// replaceable, audited, never shown again; a wrong PROVIDER_KEYS_SECRET fails closed (503).

const SECRET = 'provider-keys-test-secret-0123456789abcdef';
process.env.PROVIDER_KEYS_SECRET = SECRET;
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WGS_PROVIDER_KEY_STORED_TEST_ENV_KEY = 'sk-from-the-environment';
resetConfigForTests();

const TEXT = '/v1/text/generate';
const fake = withFakeOpenAi();
beforeEach(() => fake.reset());

let counter = 0;
async function keyFor(apiKeyEnv?: string) {
  const provider = `sk${++counter}-${Date.now() % 1_000_000}`;
  const key = await createTestKey({
    providers: { [provider]: { type: 'openai', base_url: fake.baseUrl, ...(apiKeyEnv ? { api_key_env: apiKeyEnv } : {}) } },
    operations: { 'text.generate': { engine: `${provider}:model-k`, units: 1 } },
  });
  return { ...key, provider };
}

describe('a stored provider key', () => {
  it('is encrypted at rest, used before the environment variable, and replaceable at once', async () => {
    const { key, provider } = await keyFor('WGS_PROVIDER_KEY_STORED_TEST_ENV_KEY');
    expect((await call(api, TEXT, { input: 'env' }, { key })).status).toBe(200);
    expect(fake.lastAuthorization).toBe('Bearer sk-from-the-environment');
    expect((await listProviders(getPrisma())).find((p) => p.name === provider)!.key).toEqual({
      set: true,
      source: 'env',
      updated_at: null,
    });

    const set = await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-stored-first-0001' });
    expect(set).toMatchObject({ provider, key_source: 'stored', replaced: false });
    expect(JSON.stringify(set)).not.toContain('sk-stored');
    expect((await call(api, TEXT, { input: 'stored' }, { key })).status).toBe(200);
    expect(fake.lastAuthorization).toBe('Bearer sk-stored-first-0001');

    const { rows } = await getPool().query('SELECT iv, ciphertext, auth_tag FROM provider_keys WHERE provider = $1', [provider]);
    expect(rows).toHaveLength(1);
    expect(Buffer.concat([rows[0].iv, rows[0].ciphertext, rows[0].auth_tag]).toString('latin1')).not.toContain('sk-stored');

    expect(await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-stored-second-0002' })).toMatchObject({ replaced: true });
    expect((await call(api, TEXT, { input: 'replaced' }, { key })).status).toBe(200);
    expect(fake.lastAuthorization).toBe('Bearer sk-stored-second-0002');

    const listed = (await listProviders(getPrisma())).find((p) => p.name === provider)!;
    expect(listed).toMatchObject({
      type: 'openai',
      base_url: fake.baseUrl,
      api_key_env: 'WGS_PROVIDER_KEY_STORED_TEST_ENV_KEY',
      key: { set: true, source: 'stored' },
    });
    expect(JSON.stringify(listed)).not.toContain('sk-');

    const audit = await getPrisma().auditLog.findMany({
      where: { targetType: 'provider', targetId: provider, action: { startsWith: 'provider.key' } },
      orderBy: { createdAt: 'asc' },
    });
    expect(audit.map((row) => row.action)).toEqual(['provider.key_set', 'provider.key_replaced']);
    expect(JSON.stringify(audit.map((row) => [row.before, row.after]))).not.toContain('sk-stored');
  });

  it('serves a provider that names no environment variable', async () => {
    const { key, provider } = await keyFor();
    await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-only-stored' });
    expect((await call(api, TEXT, { input: 'hi' }, { key })).status).toBe(200);
    expect(fake.lastAuthorization).toBe('Bearer sk-only-stored');
  });

  it('under another PROVIDER_KEYS_SECRET cannot be opened: 503, nothing charged, the provider not called', async () => {
    const { key, id, provider } = await keyFor('WGS_PROVIDER_KEY_STORED_TEST_ENV_KEY');
    await setProviderKey(getPrisma(), CLI_ACTOR, { provider, apiKey: 'sk-sealed-under-the-old-secret' });
    process.env.PROVIDER_KEYS_SECRET = 'another-secret-entirely-0123456789abcdef';
    resetConfigForTests();
    forgetProviderEngines(provider);
    try {
      const result = await call(api, TEXT, { input: 'hi' }, { key });
      expectEnvelope(result, 503, 'provider_unavailable');
      expect(result.text).not.toContain('sealed');
      expect(fake.callCount).toBe(0);
      expect(await remainingUnits(id)).toBe(1000);
    } finally {
      process.env.PROVIDER_KEYS_SECRET = SECRET;
      resetConfigForTests();
      forgetProviderEngines(provider);
    }
  });

  it('is refused for an unknown provider (404) and when empty or spaced (422), naming the field but never the key', async () => {
    const refused = async (input: unknown) =>
      setProviderKey(getPrisma(), CLI_ACTOR, input).then(
        () => undefined,
        (error: unknown) => error,
      );
    const unknown = await refused({ provider: 'no-such-provider', apiKey: 'sk-whatever' });
    expect(isApiError(unknown) && unknown.code).toBe('not_found');
    const { provider } = await keyFor();
    for (const apiKey of ['', 'sk with spaces', 'sk-line\n']) {
      const error = await refused({ provider, apiKey });
      expect(isApiError(error) && error.code, JSON.stringify(apiKey)).toBe('validation_error');
      expect(JSON.stringify((error as { details?: unknown }).details)).not.toContain('sk');
      expect((error as Error).message).not.toContain('sk');
    }
    expect(await getPrisma().providerKey.count({ where: { provider } })).toBe(0);
  });
});

describe('the dashboard API (tRPC providers router)', () => {
  it('lists providers and sets a key for a signed-in operator only, audited under that operator', async () => {
    const { provider } = await keyFor();
    const { caller, operator } = await operatorCaller();
    const result = await caller.providers.setKey({ provider, apiKey: 'sk-from-the-dashboard' });
    expect(result).toMatchObject({ provider, key_source: 'stored', replaced: false });
    const listed = (await caller.providers.list()).find((p) => p.name === provider);
    expect(listed?.key).toMatchObject({ set: true, source: 'stored' });
    const audit = await getPrisma().auditLog.findFirstOrThrow({
      where: { targetType: 'provider', targetId: provider, action: { startsWith: 'provider.key' } },
    });
    expect(audit).toMatchObject({ actorType: 'operator', actorId: operator.id, action: 'provider.key_set' });
    await expectTrpcError(anonymousCaller().providers.setKey({ provider, apiKey: 'sk-anonymous' }), 'UNAUTHORIZED');
    await expectTrpcError(anonymousCaller().providers.list(), 'UNAUTHORIZED');
    await expectTrpcError(caller.providers.setKey({ provider, apiKey: '' }), 'BAD_REQUEST');
  });
});

describe('engine lists when applied', () => {
  it('a list naming a provider that exists nowhere is refused at that entry, and nothing is applied', async () => {
    const file = parsePackagesFile({
      packages: [
        {
          slug: `ghost-${Date.now()}`,
          name: 'Ghost',
          quota_units: 1,
          limits: { requests_per_minute: 1, concurrency: 1 },
          operations: { 'text.generate': { engine: ['local', 'ghost-provider-x:model'], units: 1 } },
        },
      ],
    });
    const error = await applyPackages(getPrisma(), CLI_ACTOR, file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(error) && error.code).toBe('validation_error');
    const issues = (error as { details: { issues: { path: string }[] } }).details.issues;
    expect(issues.map((issue) => issue.path)).toEqual([expect.stringMatching(/operations\.text\.generate\.engine\.1$/)]);
  });
});
