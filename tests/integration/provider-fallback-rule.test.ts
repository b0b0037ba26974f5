import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool } from '@/server/db/client';
import { testOperationOf } from '@/server/domain/providers/provider-test-call';
import { PROVIDER_TYPE_INFO, PROVIDER_TYPES, type ProviderType } from '@/server/contract/provider-types';
import { api, call, createTestKey, expectEnvelope, remainingUnits, type CallResult, type TestKey } from '../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../fakes/fake-openai';
import type { FakeProviderServer } from './support/providers/fake-protocol-server';
import { startAnthropicFake } from './support/providers/protocols/anthropic';
import { startDeepgramFake } from './support/providers/protocols/deepgram';
import { startElevenLabsFake } from './support/providers/protocols/elevenlabs';
import { startFalFake } from './support/providers/protocols/fal';
import { startGatewayFake } from './support/providers/protocols/gateway';
import { startGoogleFake } from './support/providers/protocols/google';
import { startMediaApisFake } from './support/providers/protocols/media-apis';
import { startOpenAiStyleFake } from './support/providers/protocols/openai-style';
import { sampleWav, verifiedUpload } from './support/storage/uploads';

// One fallback rule for every provider type, each against a fake of its own protocol, through
// /v1 with the engine list [PROVIDER:MODEL, local]: a refusal of the operator's configuration
// (401) and a failure another provider may not share (503) go on to the next engine, which
// answers, charged once; a refusal of the customer's input (400) ends the chain: 503
// provider_unavailable, nothing charged, the next engine never tried.

process.env.PROVIDER_TIMEOUT_MS = '5000';
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WGS_PROVIDER_KEY_FALLBACK_RULE_KEY = 'sk-fallback-rule-0123456789';
resetConfigForTests();

/** What both kinds of fake share: an HTTP status for every call, and back to normal. */
type Fake = { setMode(mode: { kind: 'status'; status: number }): void; reset(): void; close(): Promise<void> };
type Servers = {
  openai: FakeOpenAi;
  openaiStyle: FakeProviderServer;
  anthropic: FakeProviderServer;
  google: FakeProviderServer;
  mediaApis: FakeProviderServer;
  fal: FakeProviderServer;
  elevenlabs: FakeProviderServer;
  deepgram: FakeProviderServer;
  gateway: FakeProviderServer;
};

interface TypeSpec {
  /** The fake speaking this type's protocol, and the provider entry reaching it. */
  reach(servers: Servers): { fake: Fake; entry: Record<string, unknown> };
  /** The model of the operation tested (the type's cheapest: testOperationOf). */
  model: string;
}

const SPECS: Record<ProviderType, TypeSpec> = {
  openai: { reach: (s) => ({ fake: s.openai, entry: { base_url: s.openai.baseUrl } }), model: 'model-x' },
  'openai-compatible': {
    reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: `${s.openaiStyle.origin}/v1` } }),
    model: 'llama-3.3-70b',
  },
  anthropic: { reach: (s) => ({ fake: s.anthropic, entry: { base_url: `${s.anthropic.origin}/v1` } }), model: 'claude-haiku-4-5' },
  google: { reach: (s) => ({ fake: s.google, entry: { base_url: `${s.google.origin}/v1beta` } }), model: 'gemini-2.5-flash' },
  xai: { reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: `${s.openaiStyle.origin}/v1` } }), model: 'grok-4' },
  mistral: { reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: `${s.openaiStyle.origin}/v1` } }), model: 'mistral-large-latest' },
  groq: {
    reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: `${s.openaiStyle.origin}/openai/v1` } }),
    model: 'llama-3.3-70b-versatile',
  },
  deepseek: { reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: s.openaiStyle.origin } }), model: 'deepseek-chat' },
  azure: { reach: (s) => ({ fake: s.openaiStyle, entry: { base_url: `${s.openaiStyle.origin}/openai/v1` } }), model: 'my-gpt-4o' },
  'amazon-bedrock': {
    reach: (s) => ({ fake: s.mediaApis, entry: { base_url: s.mediaApis.origin, region: 'us-east-1' } }),
    model: 'amazon.nova-pro-v1:0',
  },
  fal: { reach: (s) => ({ fake: s.fal, entry: { base_url: s.fal.origin } }), model: 'whisper' },
  replicate: {
    reach: (s) => ({ fake: s.mediaApis, entry: { base_url: `${s.mediaApis.origin}/v1` } }),
    model: 'black-forest-labs/flux-schnell',
  },
  luma: { reach: (s) => ({ fake: s.mediaApis, entry: { base_url: s.mediaApis.origin } }), model: 'photon-1' },
  elevenlabs: { reach: (s) => ({ fake: s.elevenlabs, entry: { base_url: s.elevenlabs.origin } }), model: 'scribe_v1' },
  deepgram: { reach: (s) => ({ fake: s.deepgram, entry: { base_url: s.deepgram.origin } }), model: 'nova-3' },
  assemblyai: { reach: (s) => ({ fake: s.mediaApis, entry: { base_url: s.mediaApis.origin } }), model: 'best' },
  gateway: { reach: (s) => ({ fake: s.gateway, entry: { base_url: `${s.gateway.origin}/v3/ai` } }), model: 'anthropic/claude-haiku-4.5' },
};

const UNITS = 3;
let servers: Servers;
let wav: Buffer;

beforeAll(async () => {
  wav = await sampleWav('Hello there.');
  const [openai, openaiStyle, anthropic, google, mediaApis, fal, elevenlabs, deepgram, gateway] = await Promise.all([
    startFakeOpenAi(),
    startOpenAiStyleFake(),
    startAnthropicFake(),
    startGoogleFake(),
    startMediaApisFake(),
    startFalFake(),
    startElevenLabsFake(),
    startDeepgramFake(),
    startGatewayFake(),
  ]);
  servers = { openai, openaiStyle, anthropic, google, mediaApis, fal, elevenlabs, deepgram, gateway };
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
  await disconnectDb();
});

async function usageOf(keyId: string) {
  const { rows } = await getPool().query<{ outcome: string; units: number; engine: string; engines_tried: string[] }>(
    'SELECT outcome::text, units, engine, engines_tried FROM usage_events WHERE api_key_id = $1 ORDER BY created_at DESC LIMIT 1',
    [keyId],
  );
  return rows[0];
}

describe.each(PROVIDER_TYPES)('%s: one fallback rule', (type) => {
  const spec = SPECS[type];
  const operation = testOperationOf(PROVIDER_TYPE_INFO[type].operations)!;
  const name = `rule${type.replace(/[^a-z]/g, '')}`.slice(0, 30);
  const engine = `${name}:${spec.model}`;
  let key: TestKey;
  let fake: Fake;
  let audioId: string | undefined;

  beforeAll(async () => {
    const reached = spec.reach(servers);
    fake = reached.fake;
    key = await createTestKey({
      quota: 100,
      providers: { [name]: { type, ...reached.entry, api_key_env: 'WGS_PROVIDER_KEY_FALLBACK_RULE_KEY' } },
      operations: { [operation]: { engine: [engine, 'local'], units: UNITS } },
    });
    if (operation === 'audio.transcribe') {
      audioId = await verifiedUpload(key.key, { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' }, wav);
    }
  });

  const run = (): Promise<CallResult> => {
    switch (operation) {
      case 'text.generate':
        return call(api, '/v1/text/generate', { input: 'Say hi' }, { key: key.key });
      case 'images.generate':
        return call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'png' }, { key: key.key });
      case 'audio.transcribe':
        return call(api, '/v1/audio/transcribe', { input_upload_id: audioId }, { key: key.key });
      default:
        throw new Error(`no request written for ${operation}`);
    }
  };

  it.each([401, 503])(`${operation}: HTTP %i from the provider falls back to the next engine, charged once`, async (status) => {
    fake.setMode({ kind: 'status', status });
    try {
      const before = await remainingUnits(key.id);
      const result = await run();
      expect(result.status, result.text).toBe(200);
      expect(result.json.usage.charged_units).toBe(UNITS);
      expect(await remainingUnits(key.id)).toBe(before - UNITS);
      expect(await usageOf(key.id)).toEqual({ outcome: 'succeeded', units: UNITS, engine: 'local', engines_tried: [engine, 'local'] });
    } finally {
      fake.reset();
    }
  });

  it(`${operation}: HTTP 400 (the customer's input refused) ends the chain: 503, nothing charged, the next engine not tried`, async () => {
    fake.setMode({ kind: 'status', status: 400 });
    try {
      const before = await remainingUnits(key.id);
      expectEnvelope(await run(), 503, 'provider_unavailable');
      expect(await remainingUnits(key.id)).toBe(before);
      expect(await usageOf(key.id)).toEqual({ outcome: 'failed', units: 0, engine, engines_tried: [engine] });
    } finally {
      fake.reset();
    }
  });
});
