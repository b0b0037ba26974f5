import { randomBytes, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR, type Actor } from '@/server/domain/actor';
import { isApiError } from '@/server/domain/errors';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { listProviders } from '@/server/domain/providers/list-providers';
import { refusedProviderLines } from '@/server/domain/providers/refused-providers';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import { killAllSpawned, runCli } from './support/processes';
import { expectTrpcError, operatorCaller } from './trpc/helpers';

// api_key_env is an allowlist (the type's own variable, a name ending in _API_KEY but another type's
// own, WGS_PROVIDER_KEY_*, PROVIDER_KEY_ENV_ALLOWED),
// checked when a provider is saved (packages file, CLI, dashboard) and again when its key is read;
// where an environment key is sent is the owner's decision.

process.env.PROVIDER_MAX_RETRIES = '0';
process.env.MINIO_ROOT_PASSWORD = 'minio-root-password-never-sent';
process.env.WGS_PROVIDER_KEY_ALLOWLIST = 'sk-allowlist-0123456789';
process.env.OWNER_LISTED_KEY = 'sk-owner-listed-0123456789';
process.env.PROVIDER_KEY_ENV_ALLOWED = 'OWNER_LISTED_KEY'; // one listing DATABASE_URL stops the start (tests/unit/config.test.ts)
resetConfigForTests();

const name = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
const ADMIN: Actor = { type: 'operator', id: randomUUID(), label: 'admin@example.com', role: 'admin' };

function fileWith(provider: string, entry: Record<string, unknown>) {
  return parsePackagesFile({
    providers: { [provider]: entry },
    packages: [
      {
        slug: name('allow-pkg'),
        name: 'Allowlist',
        quota_units: 10,
        limits: { requests_per_minute: 10, concurrency: 1 },
        operations: { 'text.generate': { engine: `${provider}:model-x`, units: 1, max_output_tokens: 100 } },
      },
    ],
  });
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isApiError(error)) throw new Error(`not refused: ${String(error)}`);
  return error;
}

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(async () => {
  killAllSpawned();
  await fake.close();
});

describe('api_key_env names only provider key variables', () => {
  it.each([
    ['MINIO_ROOT_PASSWORD', 'openai', /MINIO_ROOT_PASSWORD is not a provider key variable: name OPENAI_API_KEY \(the openai type's own\)/],
    ['ANTHROPIC_API_KEY', 'openai', /ANTHROPIC_API_KEY is another provider type's key variable; name OPENAI_API_KEY/],
    [
      'GITHUB_TOKEN',
      'openai',
      /GITHUB_TOKEN is not a provider key variable: name OPENAI_API_KEY \(the openai type's own\), one ending in _API_KEY/,
    ],
    ['PG_API_KEY', 'openai', /PG_API_KEY is a variable the service itself reads/],
    ['DATABASE_URL', 'openai', /DATABASE_URL is a variable the service itself reads/],
  ])('the packages file refuses %s for type %s, one line, nothing written', async (variable, type, why) => {
    const provider = name('file');
    const error = await refusal(applyPackages(getPrisma(), CLI_ACTOR, fileWith(provider, { type, api_key_env: variable })));
    expect(error.code).toBe('validation_error');
    expect(error.message).toMatch(new RegExp(`^providers\\.${provider}\\.api_key_env: `));
    expect(error.message).toMatch(why);
    expect(error.message).not.toContain('\n');
    expect(await getPrisma().provider.count({ where: { name: provider } })).toBe(0);
  });

  it("accepts the type's own variable, a name ending in _API_KEY (CONTRACT.md §7's MAIN_API_KEY), WGS_PROVIDER_KEY_* and a name the owner lists", async () => {
    for (const [type, variable] of [
      ['anthropic', 'ANTHROPIC_API_KEY'],
      ['openai', 'MAIN_API_KEY'],
      ['openai-compatible', 'WGS_PROVIDER_KEY_ALLOWLIST'],
      ['groq', 'OWNER_LISTED_KEY'],
    ] as const) {
      const provider = name('ok');
      const entry =
        type === 'openai-compatible' ? { type, api_key_env: variable, base_url: fake.baseUrl } : { type, api_key_env: variable };
      await applyPackages(getPrisma(), CLI_ACTOR, fileWith(provider, entry));
      expect(await getPrisma().provider.findUnique({ where: { name: provider } })).toMatchObject({ apiKeyEnv: variable });
    }
  });

  it('the dashboard refuses MINIO_ROOT_PASSWORD on create and on update, the row kept as it was', async () => {
    const { caller } = await operatorCaller('owner');
    const provider = name('form');
    const error = await expectTrpcError(
      caller.providers.save({ name: provider, mode: 'create', entry: { type: 'openai', api_key_env: 'MINIO_ROOT_PASSWORD' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(error.message).toMatch(/^api_key_env: MINIO_ROOT_PASSWORD is not a provider key variable/);
    await caller.providers.save({ name: provider, mode: 'create', entry: { type: 'openai', api_key_env: 'OPENAI_API_KEY' } });
    await expectTrpcError(
      caller.providers.save({ name: provider, mode: 'update', entry: { type: 'openai', api_key_env: 'MINIO_ROOT_PASSWORD' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(await getPrisma().provider.findUnique({ where: { name: provider } })).toMatchObject({ apiKeyEnv: 'OPENAI_API_KEY' });
  });

  it('the CLI refuses it: exit 1, one line naming the field, nothing written', { timeout: 120_000 }, async () => {
    const provider = name('cli');
    const file = join(tmpdir(), `${provider}.json`);
    writeFileSync(file, JSON.stringify(fileWith(provider, { type: 'openai', api_key_env: 'MINIO_ROOT_PASSWORD' })));
    // On a DATABASE_URL the production CLI needs the instances' PROVIDER_KEYS_SECRET (it generates none).
    const env = { DATABASE_URL: process.env.DATABASE_URL!, PROVIDER_KEYS_SECRET: randomBytes(32).toString('base64') };
    const result = await runCli(['packages', 'apply', file], tmpdir(), 90_000, env);
    expect(result.code).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^error: providers\\.${provider}\\.api_key_env: MINIO_ROOT_PASSWORD is not a provider key variable`),
      ),
    ]);
    expect(await getPrisma().provider.count({ where: { name: provider } })).toBe(0);
  });
});

describe('where an environment key is sent is the owner’s decision', () => {
  it('an admin may not point an env-keyed provider at another server, nor move or retype one; an owner may', async () => {
    const { caller: admin } = await operatorCaller('admin');
    const { caller: owner } = await operatorCaller('owner');
    const provider = name('dest');
    const entry = { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' };
    const forbidden = await expectTrpcError(
      admin.providers.save({ name: provider, mode: 'create', entry: { ...entry, base_url: 'https://collector.example.net/v1' } }),
      'FORBIDDEN',
    );
    expect(forbidden.message).toMatch(
      /^base_url: this needs the owner role: the provider's key comes from the environment \(ANTHROPIC_API_KEY\)/,
    );
    // At its type's default (absent or written out) an admin may save it.
    await admin.providers.save({ name: provider, mode: 'create', entry });
    await admin.providers.save({ name: provider, mode: 'update', entry: { ...entry, base_url: 'https://api.anthropic.com/v1/' } });
    await expectTrpcError(
      admin.providers.save({ name: provider, mode: 'update', entry: { ...entry, base_url: 'https://collector.example.net/v1' } }),
      'FORBIDDEN',
    );
    await expectTrpcError(
      admin.providers.save({
        name: provider,
        mode: 'update',
        entry: { type: 'openai-compatible', base_url: 'https://collector.example.net/v1' },
      }),
      'FORBIDDEN',
    );
    expect(await getPrisma().provider.findUnique({ where: { name: provider } })).toMatchObject({
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com/v1/',
    });
    const moved = await owner.providers.save({
      name: provider,
      mode: 'update',
      entry: { ...entry, base_url: 'https://proxy.example.net/v1' },
    });
    expect(moved.status).toBe('updated');
    // Prices of a provider the owner placed are an admin's to change; its key's variable is not.
    await admin.providers.save({
      name: provider,
      mode: 'update',
      entry: { ...entry, base_url: 'https://proxy.example.net/v1', prices: {} },
    });
    await expectTrpcError(
      admin.providers.save({
        name: provider,
        mode: 'update',
        entry: { type: 'anthropic', api_key_env: 'WGS_PROVIDER_KEY_ALLOWLIST', base_url: 'https://proxy.example.net/v1' },
      }),
      'FORBIDDEN',
    );
  });

  it('an Azure resource is a destination too: an admin may not name or change one for AZURE_API_KEY', async () => {
    const { caller: admin } = await operatorCaller('admin');
    const { caller: owner } = await operatorCaller('owner');
    const provider = name('az');
    const entry = { type: 'azure', api_key_env: 'AZURE_API_KEY' };
    const refused = await expectTrpcError(
      admin.providers.save({ name: provider, mode: 'create', entry: { ...entry, resource_name: 'someone-elses' } }),
      'FORBIDDEN',
    );
    expect(refused.message).toMatch(/^resource_name: this needs the owner role/);
    await owner.providers.save({ name: provider, mode: 'create', entry: { ...entry, resource_name: 'ours' } });
    await expectTrpcError(
      admin.providers.save({ name: provider, mode: 'update', entry: { ...entry, resource_name: 'someone-elses' } }),
      'FORBIDDEN',
    );
    await admin.providers.save({ name: provider, mode: 'update', entry: { ...entry, resource_name: 'ours', api_version: 'v1' } });
  });

  it('the packages file applied by an admin is held to the same rule; the CLI is the owner', async () => {
    const provider = name('file-dest');
    const entry = { type: 'openai', api_key_env: 'OPENAI_API_KEY', base_url: 'https://collector.example.net/v1' };
    const error = await refusal(applyPackages(getPrisma(), ADMIN, fileWith(provider, entry)));
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(new RegExp(`^providers\\.${provider}\\.base_url: this needs the owner role`));
    expect(await getPrisma().provider.count({ where: { name: provider } })).toBe(0);
    await applyPackages(getPrisma(), CLI_ACTOR, fileWith(provider, entry));
    const moved = { ...entry, base_url: 'https://elsewhere.example.net/v1' };
    expect((await refusal(applyPackages(getPrisma(), ADMIN, fileWith(provider, moved)))).code).toBe('forbidden');
    // A provider without an environment key may go anywhere an admin points it.
    const keyless = name('keyless');
    await applyPackages(getPrisma(), ADMIN, fileWith(keyless, { type: 'openai-compatible', base_url: fake.baseUrl }));
  });
});

describe('a stored row that fails the rule is refused when read', () => {
  it('no call is made, the page says refused without telling whether the variable is set, start names it', async () => {
    const provider = name('legacy');
    const { key, id } = await createTestKey({
      providers: { [provider]: { type: 'openai', base_url: fake.baseUrl } },
      operations: { 'text.generate': { engine: `${provider}:gpt-x`, units: 1, max_output_tokens: 50 } },
    });
    // Written before the rule (or by hand): the guard never saw it.
    await getPrisma().provider.update({ where: { name: provider }, data: { apiKeyEnv: 'MINIO_ROOT_PASSWORD' } });
    fake.reset();
    const before = await remainingUnits(id);
    const result = await call(api, '/v1/text/generate', { input: 'hi' }, { key });
    expectEnvelope(result, 503, 'provider_unavailable');
    expect(fake.callCount).toBe(0);
    expect(await remainingUnits(id)).toBe(before);

    const view = (await listProviders(getPrisma())).find((row) => row.name === provider)!;
    expect(view.key).toEqual({
      set: false,
      source: 'refused',
      updated_at: null,
      problem: expect.stringMatching(/^api_key_env MINIO_ROOT_PASSWORD is not a provider key variable/),
    });
    const { caller } = await operatorCaller('admin');
    const tested = await caller.providers.test({ provider, model: 'gpt-x' });
    expect(tested).toMatchObject({
      ok: false,
      duration_ms: null,
      message: expect.stringMatching(/^Refused: api_key_env MINIO_ROOT_PASSWORD/),
    });
    expect(fake.callCount).toBe(0);
    expect(await refusedProviderLines(getPrisma())).toContainEqual(
      expect.stringMatching(
        new RegExp(`^provider ${provider} is refused .*: api_key_env MINIO_ROOT_PASSWORD is not a provider key variable`),
      ),
    );
  });
});
