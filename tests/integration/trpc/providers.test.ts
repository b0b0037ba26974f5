import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { issueKey } from '@/server/domain/keys/issue-key';
import { TESTS_PER_MINUTE } from '@/server/domain/providers/test-provider';
import { FAKE_ERROR_TEXT } from '../../../fakes/fake-openai';
import { applyOnePackage } from '../support/product/packages';
import { anonymousCaller, expectTrpcError, operatorCaller, uniqueSlug } from './helpers';
import { withFakeOpenAi } from '../support/providers/fake-openai-server';

const fake = withFakeOpenAi();

const providerName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe('providers: add and edit', () => {
  it('creates a provider from a packages-file entry, audited, and shows what its type serves', async () => {
    const { caller, operator } = await operatorCaller();
    const name = providerName('add');
    const saved = await caller.providers.save({
      name,
      mode: 'create',
      entry: { type: 'anthropic', base_url: '', api_key_env: 'WGS_PROVIDER_KEY_ANTHROPIC_TEST_KEY' },
    });
    expect(saved).toEqual({ name, status: 'created' });
    const view = await caller.providers.get({ name });
    expect(view).toMatchObject({
      name,
      type: 'anthropic',
      base_url: null,
      api_key_env: 'WGS_PROVIDER_KEY_ANTHROPIC_TEST_KEY',
      default_base_url: 'https://api.anthropic.com/v1',
      operations: ['text.generate', 'code.generate'],
      key: { set: false, source: 'none' },
      health: { calls: 0, failures: 0, p95_ms: null },
    });
    const audit = await getPrisma().auditLog.findFirst({ where: { targetId: name, action: 'provider.create' } });
    expect(audit).toMatchObject({ actorType: 'operator', actorId: operator.id });
  });

  it('refuses an entry the packages file would refuse, field by field, and a taken name', async () => {
    const { caller } = await operatorCaller();
    const name = providerName('bad');
    const missingUrl = await expectTrpcError(
      caller.providers.save({ name, mode: 'create', entry: { type: 'openai-compatible' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect((missingUrl.cause as unknown as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path)).toEqual([
      'base_url',
    ]);
    const bedrock = await expectTrpcError(
      caller.providers.save({ name, mode: 'create', entry: { type: 'amazon-bedrock', region: 'nowhere' } }),
      'UNPROCESSABLE_CONTENT',
    );
    expect(bedrock.message).toContain('region');
    await expectTrpcError(
      caller.providers.save({ name, mode: 'create', entry: { type: 'no-such-type' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } });
    await expectTrpcError(
      caller.providers.save({ name, mode: 'create', entry: { type: 'groq' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await expectTrpcError(
      caller.providers.save({ name: providerName('none'), mode: 'update', entry: { type: 'groq' } }),
      'NOT_FOUND',
      'not_found',
    );
    expect(await getPrisma().provider.findUnique({ where: { name } })).toMatchObject({ type: 'openai-compatible' });
  });

  it('edits a provider (audited before and after); an identical edit changes nothing', async () => {
    const { caller } = await operatorCaller();
    const name = providerName('edit');
    await caller.providers.save({ name, mode: 'create', entry: { type: 'azure', resource_name: 'first-resource' } });
    expect(
      await caller.providers.save({ name, mode: 'update', entry: { type: 'azure', resource_name: 'second-resource', api_version: 'v1' } }),
    ).toEqual({ name, status: 'updated' });
    expect((await caller.providers.get({ name })).options).toEqual({ resource_name: 'second-resource', api_version: 'v1' });
    expect(
      await caller.providers.save({ name, mode: 'update', entry: { type: 'azure', resource_name: 'second-resource', api_version: 'v1' } }),
    ).toEqual({ name, status: 'unchanged' });
    const audits = await getPrisma().auditLog.findMany({ where: { targetId: name, action: 'provider.update' } });
    expect(audits).toHaveLength(1);
    expect(audits[0]!.before).toMatchObject({ options: { resource_name: 'first-resource' } });
  });

  it('refuses a new type that cannot serve what a package sells through the provider', async () => {
    const { caller } = await operatorCaller();
    const name = providerName('sold');
    const slug = uniqueSlug('sold-pkg');
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai', base_url: fake.baseUrl } });
    await applyOnePackage(slug, { 'audio.speech': { engine: `${name}:tts-1`, units: 1 } });
    const refused = await expectTrpcError(
      caller.providers.save({ name, mode: 'update', entry: { type: 'anthropic' } }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(refused.message).toContain(`package "${slug}" version 1`);
    expect(refused.message).toContain('audio.speech');
    expect(await getPrisma().provider.findUnique({ where: { name } })).toMatchObject({ type: 'openai' });
    // A type that still serves it is accepted.
    expect(await caller.providers.save({ name, mode: 'update', entry: { type: 'gateway' } })).toEqual({ name, status: 'updated' });
  });

  it('is for signed-in operators only', async () => {
    await expectTrpcError(anonymousCaller().providers.overview(), 'UNAUTHORIZED');
    await expectTrpcError(anonymousCaller().providers.save({ name: 'x', mode: 'create', entry: { type: 'groq' } }), 'UNAUTHORIZED');
    await expectTrpcError(anonymousCaller().providers.test({ provider: 'x' }), 'UNAUTHORIZED');
  });
});

describe('providers: test button', () => {
  it('calls the provider through its engine with the stored key and says how long it took', async () => {
    const { caller, operator } = await operatorCaller();
    const name = providerName('test-ok');
    await caller.providers.save({
      name,
      mode: 'create',
      entry: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_UNSET_TEST_KEY_VAR' },
    });
    const noKey = await caller.providers.test({ provider: name, model: 'gpt-test' });
    expect(noKey).toMatchObject({ ok: false, duration_ms: null, message: expect.stringContaining('WGS_PROVIDER_KEY_UNSET_TEST_KEY_VAR') });

    await caller.providers.setKey({ provider: name, apiKey: 'sk-test-provider-secret' });
    fake.reset();
    const result = await caller.providers.test({ provider: name, model: 'gpt-test' });
    expect(result).toMatchObject({ ok: true, operation: 'text.generate', model: 'gpt-test' });
    expect(result.message).toBe(`Answered in ${result.duration_ms} ms.`);
    expect(fake.callCount).toBe(1);
    expect(fake.lastAuthorization).toBe('Bearer sk-test-provider-secret');
    expect((fake.calls[0]!.body as { model: string }).model).toBe('gpt-test');
    const audit = await getPrisma().auditLog.findFirst({
      where: { targetId: name, action: 'provider.test' },
      orderBy: { createdAt: 'desc' },
    });
    expect(audit).toMatchObject({ actorId: operator.id, after: { ok: true, model: 'gpt-test' } });
    expect(JSON.stringify([audit!.before, audit!.after])).not.toContain('sk-test-provider-secret');
  });

  it("says in plain words that the key was refused, without the provider's text", async () => {
    const { caller } = await operatorCaller();
    const name = providerName('test-401');
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai', base_url: fake.baseUrl } });
    fake.setMode({ kind: 'status', status: 401 });
    try {
      const result = await caller.providers.test({ provider: name, model: 'gpt-test' });
      expect(result).toMatchObject({ ok: false, message: 'The provider refused the key (401).' });
      expect(JSON.stringify(result)).not.toContain(FAKE_ERROR_TEXT);
      fake.setMode({ kind: 'status', status: 500 });
      expect((await caller.providers.test({ provider: name, model: 'gpt-test' })).message).toBe(
        'The provider failed with a server error (500).',
      );
    } finally {
      fake.reset();
    }
  });

  it('a provider nobody listens on is "could not connect"; without a model and no package naming one, the model is asked for', async () => {
    const { caller } = await operatorCaller();
    const name = providerName('test-down');
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai-compatible', base_url: 'http://127.0.0.1:9/v1' } });
    const down = await caller.providers.test({ provider: name, model: 'm' });
    expect(down.ok).toBe(false);
    expect(down.message).toMatch(/^Could not connect to the provider/);
    const noModel = await expectTrpcError(caller.providers.test({ provider: name }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect(noModel.message).toContain('model');
    await expectTrpcError(caller.providers.test({ provider: providerName('missing'), model: 'm' }), 'NOT_FOUND', 'not_found');
  });

  it(`uses the model a package names when none is typed, and allows ${TESTS_PER_MINUTE} tests a minute per provider`, async () => {
    const { caller } = await operatorCaller();
    const name = providerName('test-limit');
    const slug = uniqueSlug('test-limit');
    await caller.providers.save({ name, mode: 'create', entry: { type: 'openai', base_url: fake.baseUrl } });
    await applyOnePackage(slug, { 'text.generate': { engine: ['local', `${name}:named-model`], units: 1 } });
    expect(await caller.providers.test({ provider: name })).toMatchObject({ ok: true, model: 'named-model' });
    for (let attempt = 1; attempt < TESTS_PER_MINUTE; attempt++) await caller.providers.test({ provider: name });
    await expectTrpcError(caller.providers.test({ provider: name }), 'TOO_MANY_REQUESTS', 'rate_limited');
    expect((await caller.providers.engineChoices()).find((choice) => choice.provider === name)).toEqual({
      provider: name,
      type: 'openai',
      models: ['named-model'],
      operations: ['text.generate', 'code.generate', 'images.generate', 'videos.generate', 'audio.speech', 'audio.transcribe'],
    });
  });
});

describe('providers: last 24 hours', () => {
  it('counts each engine a request called, its failures, and the p95 of what it answered', async () => {
    const { caller } = await operatorCaller();
    const first = providerName('h1');
    const second = providerName('h2');
    const slug = uniqueSlug('health');
    await caller.providers.save({ name: first, mode: 'create', entry: { type: 'openai', base_url: fake.baseUrl } });
    await caller.providers.save({ name: second, mode: 'create', entry: { type: 'groq' } });
    await applyOnePackage(slug, { 'text.generate': { engine: [`${first}:a`, `${second}:b`], units: 1 } }, 100);
    const key = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug });
    const version = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } });
    const event = (
      engine: string,
      tried: string[],
      outcome: 'succeeded' | 'failed',
      durationMs: number,
      hoursAgo = 0,
      errorCode?: string,
    ) => ({
      apiKeyId: key.id,
      packageVersionId: version.packageVersionId,
      operation: 'text.generate',
      engine,
      enginesTried: tried,
      outcome,
      units: outcome === 'succeeded' ? 1 : 0,
      requestId: `req_${randomUUID()}`,
      durationMs,
      errorCode,
      createdAt: new Date(Date.now() - hoursAgo * 3_600_000),
    });
    await getPrisma().usageEvent.createMany({
      data: [
        ...Array.from({ length: 19 }, (_, i) => event(`${first}:a`, [`${first}:a`], 'succeeded', 100 + i)),
        event(`${first}:a`, [`${first}:a`], 'succeeded', 1000),
        event(`${second}:b`, [`${first}:a`, `${second}:b`], 'succeeded', 400),
        event(`${second}:b`, [`${first}:a`, `${second}:b`], 'failed', 50),
        event(`${first}:a`, [`${first}:a`], 'succeeded', 99_999, 25), // outside the window
        // Streams charged after their first piece: one the provider broke off (a failure), one the client left (not).
        event(`${first}:a`, [`${first}:a`], 'succeeded', 5_000, 0, 'provider_failed'),
        event(`${first}:a`, [`${first}:a`], 'succeeded', 110, 0, 'client_disconnected'),
      ],
    });
    const overview = await caller.providers.overview();
    const health = (name: string) => overview.find((provider) => provider.name === name)!.health;
    // first: 21 answered + 1 broken off (5 s, not an answer) + 2 failed before the fallback; p95 of its 21 answers
    // (100..118, 110 once more, 1000), interpolated at 0.95 × 20 = 19: 118.
    expect(health(first)).toEqual({ provider: first, calls: 24, failures: 3, p95_ms: 118 });
    expect(health(second)).toEqual({ provider: second, calls: 2, failures: 1, p95_ms: 400 });
  });
});
