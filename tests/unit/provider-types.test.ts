import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { engineCapabilityIssues } from '@/server/domain/providers/check-engine-capabilities';
import { engineNamesOf } from '@/server/domain/engine-names';
import { packageDefinitionSchema, providerSchema } from '@/server/contract/package-schema';
import { OPERATIONS, type Operation } from '@/server/domain/operations';
import type { SdkModels } from '@/server/providers/ai-sdk/provider-module';
import { loadProviderModule, type SdkProviderType } from '@/server/providers/ai-sdk/types';
import { PROVIDER_TYPE_INFO, PROVIDER_TYPES, operationsOf } from '@/server/contract/provider-types';

// The capability table is data the packages file is judged by: it must agree with what each
// type's module can build, and the packages file must be refused where it asks more.

const MODEL_KIND: Record<Operation, keyof SdkModels> = {
  'text.generate': 'languageModel',
  'code.generate': 'languageModel',
  'images.generate': 'imageModel',
  'videos.generate': 'videoModel',
  'audio.speech': 'speechModel',
  'audio.transcribe': 'transcriptionModel',
};

const EXTRAS = { resource_name: 'my-resource', region: 'us-east-1' };

describe('the capability table', () => {
  it('names exactly the seventeen types of the issue', () => {
    expect([...PROVIDER_TYPES].sort()).toEqual(
      [
        'openai',
        'openai-compatible',
        'anthropic',
        'google',
        'xai',
        'mistral',
        'groq',
        'deepseek',
        'azure',
        'amazon-bedrock',
        'fal',
        'replicate',
        'luma',
        'elevenlabs',
        'deepgram',
        'assemblyai',
        'gateway',
      ].sort(),
    );
    for (const type of PROVIDER_TYPES) {
      expect(PROVIDER_TYPE_INFO[type].operations.length, type).toBeGreaterThan(0);
      for (const op of PROVIDER_TYPE_INFO[type].operations) expect(OPERATIONS).toContain(op);
    }
    expect(PROVIDER_TYPE_INFO.openai.operations).toEqual(OPERATIONS);
    expect(operationsOf('retired')).toEqual([]);
  });

  it.each(PROVIDER_TYPES)('%s: its module builds a model for each operation listed, and for no other', async (type) => {
    const providerModule = await loadProviderModule(type as SdkProviderType);
    const models = providerModule.create({
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: 'k',
      extras: EXTRAS,
      fetch: globalThis.fetch,
      timeoutMs: 1000,
      maxRetries: 0,
    });
    // The `openai` type's videos go through its adapter on the official client (no SDK video model).
    const kindOf = (op: Operation): keyof SdkModels => (type === 'openai' && op === 'videos.generate' ? 'videoAdapter' : MODEL_KIND[op]);
    const served = new Set(PROVIDER_TYPE_INFO[type].operations.map(kindOf));
    for (const kind of new Set([...Object.values(MODEL_KIND), 'videoAdapter' as const])) {
      expect(typeof models[kind] === 'function', `${type} ${kind}`).toBe(served.has(kind));
      if (served.has(kind)) expect(models[kind]!('some-model')).toBeTruthy();
    }
  });

  it('docs/providers.md shows exactly this table', () => {
    const doc = readFileSync('docs/providers.md', 'utf8');
    for (const type of PROVIDER_TYPES) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`${type}\` | `) && /[✓–]/.test(line));
      expect(row, type).toBeDefined();
      const cells = row!
        .split('|')
        .slice(2, 2 + OPERATIONS.length)
        .map((cell) => cell.trim());
      expect(cells, type).toEqual(OPERATIONS.map((op) => (PROVIDER_TYPE_INFO[type].operations.includes(op) ? '✓' : '–')));
    }
  });

  it('only openai-compatible requires base_url', () => {
    expect(PROVIDER_TYPES.filter((t) => PROVIDER_TYPE_INFO[t].baseUrlRequired)).toEqual(['openai-compatible']);
  });
});

describe('provider entries in the packages file', () => {
  const parse = (entry: unknown) => providerSchema.safeParse(entry);
  const messages = (entry: unknown) => {
    const result = parse(entry);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };

  it('every type is accepted with its required fields; base_url and api_key_env optional', () => {
    for (const type of PROVIDER_TYPES) {
      const entry = {
        type,
        ...(type === 'openai-compatible' ? { base_url: 'http://127.0.0.1:8000/v1' } : {}),
        ...(type === 'azure' ? { resource_name: 'my-resource' } : {}),
        ...(type === 'amazon-bedrock' ? { region: 'us-east-1' } : {}),
      };
      expect(parse(entry).success, type).toBe(true);
      expect(parse({ ...entry, base_url: 'https://proxy.example.com/x', api_key_env: 'WGS_PROVIDER_KEY_SOME_KEY' }).success, type).toBe(
        true,
      );
    }
  });

  it("today's openai entry keeps its meaning; base_url may now be omitted (the public API)", () => {
    expect(parse({ type: 'openai', base_url: 'https://api.example.com/v1', api_key_env: 'WGS_PROVIDER_KEY_MAIN_API_KEY' }).success).toBe(
      true,
    );
    expect(parse({ type: 'openai', api_key_env: 'OPENAI_API_KEY' }).success).toBe(true);
    expect(messages({ type: 'openai', base_url: 'ftp://x' })).toEqual(['base_url: base_url must be an http:// or https:// URL']);
    expect(messages({ type: 'openai', base_url: 'https://user:pw@x.example.com' })[0]).toContain('must not hold credentials');
    for (const base_url of ['https://x.example.com/v1?api_key=secret', 'https://x.example.com/v1?', 'https://x.example.com/v1#k']) {
      expect(messages({ type: 'openai', base_url }), base_url).toEqual([
        'base_url: base_url must not have a query or fragment: the engine adds its own paths after it, and a secret is named in api_key_env',
      ]);
    }
  });

  it('refuses what a type needs but lacks, an unknown type and fields of another type', () => {
    expect(messages({ type: 'openai-compatible' })).toEqual(['base_url: base_url must be an http:// or https:// URL']);
    expect(messages({ type: 'azure' })).toEqual(['resource_name: an azure provider needs resource_name or base_url']);
    expect(parse({ type: 'azure', base_url: 'https://my.openai.azure.com/openai/v1' }).success).toBe(true);
    expect(messages({ type: 'amazon-bedrock' })[0]).toMatch(/^region: /);
    expect(messages({ type: 'amazon-bedrock', region: 'mars' })).toEqual(['region: region is an AWS region, e.g. us-east-1']);
    expect(messages({ type: 'claude' })[0]).toContain('type must be one of openai, openai-compatible, anthropic');
    expect(parse({ type: 'anthropic', region: 'us-east-1' }).success).toBe(false);
  });
});

describe('engines whose provider cannot serve the operation', () => {
  const types = new Map([
    ['claude', 'anthropic'],
    ['main', 'openai'],
    ['voice', 'deepgram'],
    ['studio', 'fal'],
    ['old', 'retired'],
  ]);
  const definition = (operations: Record<string, unknown>) =>
    packageDefinitionSchema.parse({ slug: 'p', name: 'P', quota_units: 1, limits: { requests_per_minute: 1, concurrency: 1 }, operations });

  it('one line naming the field, the type and the operations it can do', () => {
    const issues = engineCapabilityIssues(definition({ 'images.generate': { engine: 'claude:claude-sonnet-4-5', units: 1 } }), 2, types);
    expect(issues).toEqual([
      {
        path: 'packages.2.operations.images.generate.engine',
        code: 'unsupported_operation',
        message: 'provider "claude" is of type "anthropic", which cannot do images.generate; it can do text.generate, code.generate',
      },
    ]);
  });

  it('each engine of a list is judged, by its position', () => {
    const settings = { engine: ['main:gpt-image-1', 'claude:claude-sonnet-4-5', 'local'], units: 1 } as unknown as {
      engine: string;
      units: number;
    };
    const issues = engineCapabilityIssues(
      { ...definition({ 'text.generate': { engine: 'local', units: 1 } }), operations: { 'images.generate': settings } } as never,
      0,
      types,
    );
    expect(issues.map((issue) => issue.path)).toEqual(['packages.0.operations.images.generate.engine.1']);
    expect(engineNamesOf(['a:x', 'b:y'])).toEqual(['a:x', 'b:y']);
    expect(engineNamesOf('local')).toEqual(['local']);
  });

  it('local, openai and unknown providers pass (unknown ones have their own check); an unknown type is refused', () => {
    expect(
      engineCapabilityIssues(
        definition({ 'videos.generate': { engine: 'main:sora-2', units: 1 }, 'audio.speech': { engine: 'local', units: 1 } }),
        0,
        types,
      ),
    ).toEqual([]);
    expect(engineCapabilityIssues(definition({ 'text.generate': { engine: 'nobody:x', units: 1 } }), 0, types)).toEqual([]);
    expect(engineCapabilityIssues(definition({ 'text.generate': { engine: 'old:x', units: 1 } }), 0, types)[0]!.message).toContain(
      'does not know',
    );
  });

  it('settings a provider cannot honour are refused, each naming its field', () => {
    const speech = (settings: Record<string, unknown>) =>
      engineCapabilityIssues(definition({ 'audio.speech': { units: 1, ...settings } }), 0, types).map((issue) => issue.message);
    expect(speech({ engine: 'voice:aura-2-thalia-en', voices: ['thalia'] })).toEqual([
      'provider "voice" (type "deepgram") cannot honour it: its voice is part of the model id',
    ]);
    expect(speech({ engine: 'voice:aura-2-thalia-en', languages: ['en'] })[0]).toContain('it takes no language');
    expect(speech({ engine: 'voice:aura-2-thalia-en', output_formats: ['wav', 'mp3'] })).toEqual([]);
    expect(speech({ engine: 'studio:fal-ai/minimax/speech-02-hd' })[0]).toContain(
      'provider "studio" (type "fal") cannot honour it: it produces only mp3',
    );
    expect(speech({ engine: 'studio:fal-ai/minimax/speech-02-hd', output_formats: ['mp3'] })).toEqual([]);
  });
});
