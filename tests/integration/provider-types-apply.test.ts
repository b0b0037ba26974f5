import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { ApiError, validationIssuesOf } from '@/server/domain/errors';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { saveProvider } from '@/server/domain/providers/save-provider';

// Provider types in the packages file: an engine whose type cannot do the operation is refused
// with one line (field, type, what it can do) and nothing of the file is written.

afterAll(() => disconnectDb());

const unique = () => randomBytes(4).toString('hex');
const pkg = (slug: string, operations: Record<string, unknown>) => ({
  slug,
  name: slug,
  quota_units: 10,
  limits: { requests_per_minute: 10, concurrency: 1 },
  operations,
});

/** A key on the package's latest version, as `keys create` makes one (its secret does not matter here). */
async function issueOn(slug: string): Promise<string> {
  const version = await getPrisma().packageVersion.findFirstOrThrow({ where: { package: { slug } }, orderBy: { version: 'desc' } });
  const data = {
    hash: randomBytes(32).toString('hex'),
    prefix: 'wgs_live_test',
    packageVersionId: version.id,
    remainingUnits: 10,
    totalUnits: 10,
  };
  return (await getPrisma().apiKey.create({ data })).id;
}

/**
 * Package `<slug>-<id>` whose version 1 sells wav speech through openai provider `<provider><id>` and
 * has a key, and whose version 2 (the latest) uses the local engine instead.
 */
async function keyOnAnOlderVersion(provider: string, slug: string) {
  const id = unique();
  const providers = { [`${provider}${id}`]: { type: 'openai', base_url: 'https://api.example.com/v1' } };
  const speech = (engine: string) => ({ 'audio.speech': { engine, units: 1, output_formats: ['wav'] } });
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({ providers, packages: [pkg(`${slug}-${id}`, speech(`${provider}${id}:tts-1`))] }),
  );
  const key = await issueOn(`${slug}-${id}`);
  await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile({ packages: [pkg(`${slug}-${id}`, speech('local'))] }));
  return { id, key };
}

async function refusal(file: unknown): Promise<ApiError> {
  const error = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file)).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('applying providers of every type', () => {
  it('an engine whose type cannot do the operation: one line, and nothing changes', async () => {
    const id = unique();
    const error = await refusal({
      providers: { [`claude${id}`]: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' } },
      packages: [pkg(`pics-${id}`, { 'images.generate': { engine: `claude${id}:claude-sonnet-4-5`, units: 1 } })],
    });
    expect(error.code).toBe('validation_error');
    expect(error.message).toBe(
      `packages.0.operations.images.generate.engine: provider "claude${id}" is of type "anthropic", which cannot do images.generate; it can do text.generate, code.generate`,
    );
    expect(await getPrisma().provider.findUnique({ where: { name: `claude${id}` } })).toBeNull();
    expect(await getPrisma().package.findUnique({ where: { slug: `pics-${id}` } })).toBeNull();
  });

  it('names every wrong engine and every unsafe provider field at once, one issue each (outside audit: only the first stage was told)', async () => {
    const id = unique();
    const engines = await refusal({
      providers: { [`claude${id}`]: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' } },
      packages: [
        pkg(`many-${id}`, {
          'text.generate': { engine: `nope${id}:m`, units: 1 },
          'images.generate': { engine: `claude${id}:claude-sonnet-4-5`, units: 1 },
          'code.generate': { engine: `gone${id}:m`, units: 1 },
        }),
      ],
    });
    expect(validationIssuesOf(engines).map((issue) => issue.path)).toEqual([
      'packages.0.operations.text.generate.engine',
      'packages.0.operations.code.generate.engine',
      'packages.0.operations.images.generate.engine',
    ]);
    const unsafe = await refusal({
      providers: {
        [`bad${id}`]: { type: 'openai', api_key_env: 'DATABASE_URL' },
        [`odd${id}`]: { type: 'openai', api_key_env: 'HOME', base_url: 'http://169.254.169.254/' },
      },
      packages: [pkg(`safe-${id}`, { 'text.generate': { engine: 'local', units: 1 } })],
    });
    expect(validationIssuesOf(unsafe).map((issue) => issue.path)).toEqual([
      `providers.bad${id}.api_key_env`,
      `providers.odd${id}.api_key_env`,
      `providers.odd${id}.base_url`,
    ]);
    expect(await getPrisma().package.findUnique({ where: { slug: `many-${id}` } })).toBeNull();
  });

  it('a setting the provider cannot honour is refused at apply time', async () => {
    const id = unique();
    const error = await refusal({
      providers: { [`dg${id}`]: { type: 'deepgram', api_key_env: 'DEEPGRAM_API_KEY' } },
      packages: [pkg(`tts-${id}`, { 'audio.speech': { engine: `dg${id}:aura-2-thalia-en`, units: 1, voices: ['thalia'] } })],
    });
    expect(error.message).toBe(
      `packages.0.operations.audio.speech.voices: provider "dg${id}" (type "deepgram") cannot honour it: its voice is part of the model id`,
    );
  });

  it('type extras are stored; the same file again is unchanged, a changed extra an update', async () => {
    const id = unique();
    const file = (resource: string) => ({
      providers: {
        [`az${id}`]: { type: 'azure', resource_name: resource, api_key_env: 'AZURE_API_KEY' },
        [`oa${id}`]: { type: 'openai', api_key_env: 'OPENAI_API_KEY' },
      },
      packages: [
        pkg(`az-${id}`, {
          'text.generate': { engine: `az${id}:my-gpt-4o`, units: 1 },
          'videos.generate': { engine: `oa${id}:sora-2`, units: 1 },
        }),
      ],
    });
    const first = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('res-one')));
    expect(first.providers.map((p) => p.status)).toEqual(['created', 'created']);
    const stored = await getPrisma().provider.findUnique({ where: { name: `az${id}` } });
    expect(stored).toMatchObject({ type: 'azure', baseUrl: null, options: { resource_name: 'res-one' } });
    expect((await getPrisma().provider.findUnique({ where: { name: `oa${id}` } }))?.baseUrl).toBeNull();
    const again = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('res-one')));
    expect(again.providers.map((p) => p.status)).toEqual(['unchanged', 'unchanged']);
    const changed = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file('res-two')));
    expect(changed.providers.map((p) => p.status)).toEqual(['updated', 'unchanged']);
  });

  it('a provider retyped under packages already stored that it could no longer serve is refused', async () => {
    const id = unique();
    await applyPackages(
      getPrisma(),
      CLI_ACTOR,
      parsePackagesFile({
        providers: { [`m${id}`]: { type: 'openai', base_url: 'https://api.example.com/v1' } },
        packages: [pkg(`img-${id}`, { 'images.generate': { engine: `m${id}:gpt-image-1`, units: 1 } })],
      }),
    );
    const error = await refusal({
      providers: { [`m${id}`]: { type: 'deepseek', api_key_env: 'DEEPSEEK_API_KEY' } },
      packages: [pkg(`other-${id}`, { 'text.generate': { engine: `m${id}:deepseek-chat`, units: 1 } })],
    });
    expect(error.message).toContain(
      `package "img-${id}" version 1 operations.images.generate.engine: provider "m${id}" is of type "deepseek", which cannot do images.generate`,
    );
    expect((await getPrisma().provider.findUnique({ where: { name: `m${id}` } }))?.type).toBe('openai');
  });

  it('…and so is one that an older version still has keys on, though the latest no longer uses it (outside audit)', async () => {
    const { id, key } = await keyOnAnOlderVersion('w', 'tts');
    // fal makes no wav: version 1, whose key still calls w:tts-1 for wav, would be broken by the retype.
    const retype = {
      providers: { [`w${id}`]: { type: 'fal', api_key_env: 'FAL_API_KEY' } },
      packages: [pkg(`other-${id}`, { 'text.generate': { engine: 'local', units: 1 } })],
    };
    const error = await refusal(retype);
    expect(error.message).toContain(`package "tts-${id}" version 1 operations.audio.speech`);
    expect((await getPrisma().provider.findUnique({ where: { name: `w${id}` } }))?.type).toBe('openai');
    // Once no key is left on that version, the retype goes through.
    await getPrisma().apiKey.update({ where: { id: key }, data: { status: 'revoked', revokedAt: new Date() } });
    const applied = await applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(retype));
    expect(applied.providers).toEqual([expect.objectContaining({ name: `w${id}`, status: 'updated' })]);
  });

  it("the dashboard's provider form judges a retype by the same versions (a version with keys; not one without)", async () => {
    const { id, key } = await keyOnAnOlderVersion('d', 'dash');
    const toFal = { name: `d${id}`, mode: 'update', entry: { type: 'fal', api_key_env: 'FAL_API_KEY' } };
    const error = await saveProvider(getPrisma(), CLI_ACTOR, toFal).catch((e: unknown) => e);
    expect((error as ApiError).message).toContain(`package "dash-${id}" version 1 sells through this provider`);
    const toAnthropic = { ...toFal, entry: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY' } };
    const cannot = await saveProvider(getPrisma(), CLI_ACTOR, toAnthropic).catch((e: unknown) => e);
    expect((cannot as ApiError).message).toContain(
      `this provider, and provider "d${id}" is of type "anthropic", which cannot do audio.speech`,
    );
    await getPrisma().apiKey.update({ where: { id: key }, data: { status: 'revoked', revokedAt: new Date() } });
    expect(await saveProvider(getPrisma(), CLI_ACTOR, toFal)).toMatchObject({ name: `d${id}`, status: 'updated' });
  });
});
