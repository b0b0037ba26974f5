import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as filesGet } from '@/app/files/[...key]/route';
import { getPool } from '@/server/db/client';
import type { Operation } from '@/server/domain/operations';
import { ProviderUnavailableError, type Engine, type ProviderFailureKind } from '@/server/providers/engine';
import { resolveEngine } from '@/server/domain/providers/resolve-engine';
import {
  api,
  call,
  createTestKey,
  expectEnvelope,
  expectNothingShown,
  remainingUnits,
  type CallResult,
  type TestKey,
} from '../../../helpers/api';
import { sampleWav, verifiedUpload } from '../storage/uploads';
import { FAKE_PROVIDER_DIAGNOSTIC, type FakeProviderMode, type FakeProviderServer } from './fake-protocol-server';

// One provider type against a fake speaking its wire protocol, through the real SDK and /v1:
// each operation it serves succeeds and is charged; a provider error, a timeout and a malformed
// answer are each 503 provider_unavailable with nothing charged and nothing of the provider shown.
// The test file sets PROVIDER_TIMEOUT_MS and PROVIDER_MAX_RETRIES before the config is read.

export type ContractOperation = Exclude<Operation, 'videos.generate'>;

export interface ProviderContractSpec {
  type: string;
  /** Starts the fake; `entry` is the provider entry (without type and api_key_env) reaching it. */
  start(): Promise<{ fake: FakeProviderServer; entry: Record<string, unknown> }>;
  /** The model id per operation served (every operation the type serves, videos aside). */
  models: Partial<Record<ContractOperation, string>>;
  /** What the customer receives from the fake's answer. */
  expectText?: string;
  expectCode?: { code: string; explanation: string };
  expectTranscript?: { text: string; segments: { start: number; end: number; text: string }[] };
  /** The secret as the provider's own header carries it (e.g. `Bearer sk-...`), from a request. */
  secretIn(request: FakeProviderServer['requests'][number]): string | undefined;
  /** Checks of what the fake received for an operation, in the provider's own terms. */
  sent?: Partial<Record<ContractOperation, (fake: FakeProviderServer) => void>>;
  /** Overrides of an operation's package settings (e.g. output_formats a provider can honour). */
  settings?: Partial<Record<ContractOperation, Record<string, unknown>>>;
}

const UNITS: Record<ContractOperation, number> = {
  'text.generate': 2,
  'code.generate': 3,
  'images.generate': 5,
  'audio.speech': 3,
  'audio.transcribe': 4,
};

async function callEngineDirectly(engine: Engine, op: ContractOperation): Promise<unknown> {
  const signal = AbortSignal.timeout(10_000);
  switch (op) {
    case 'text.generate':
      return engine.generateText({ input: 'x', outputFormat: 'text' }, signal);
    case 'code.generate':
      return engine.generateCode({ input: 'x', requirements: [] }, signal);
    case 'images.generate':
      return engine.generateImage({ prompt: 'x', format: 'png' }, signal);
    case 'audio.speech':
      return engine.synthesizeSpeech({ text: 'x', format: 'mp3' }, signal);
    case 'audio.transcribe':
      return engine.transcribe({ bytes: await sampleWav('Hi.'), mimeType: 'audio/wav', filename: 'a.wav', timestamps: 'segment' }, signal);
  }
}

export const CONTRACT_SECRET = 'sk-contract-secret-0123456789abcdef';

export function describeProviderContract(spec: ProviderContractSpec): void {
  const name = `f${spec.type.replace(/[^a-z0-9]/g, '')}`.slice(0, 30);
  const envName = `WGS_PROVIDER_KEY_FAKE_${spec.type.replace(/[^a-z0-9]/gi, '_').toUpperCase()}_KEY`;
  const operations = Object.keys(spec.models) as ContractOperation[];
  let fake: FakeProviderServer;
  let key: TestKey;
  let audioId: string | undefined;

  beforeAll(async () => {
    process.env[envName] = CONTRACT_SECRET;
    const started = await spec.start();
    fake = started.fake;
    key = await createTestKey({
      quota: 10_000,
      providers: { [name]: { type: spec.type, ...started.entry, api_key_env: envName } },
      operations: Object.fromEntries(
        operations.map((op) => [op, { engine: `${name}:${spec.models[op]}`, units: UNITS[op], ...(spec.settings?.[op] ?? {}) }]),
      ),
    });
    if (spec.models['audio.transcribe']) {
      audioId = await verifiedUpload(
        key.key,
        { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' },
        await sampleWav('Hello there.'),
      );
    }
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const run = (op: ContractOperation): Promise<CallResult> => {
    switch (op) {
      case 'text.generate':
        return call(api, '/v1/text/generate', { input: 'Say hi', context: 'Be brief' }, { key: key.key });
      case 'code.generate':
        return call(api, '/v1/code/generate', { input: 'a constant', language: 'ts', requirements: ['short'] }, { key: key.key });
      case 'images.generate':
        return call(api, '/v1/images/generate', { prompt: 'a lighthouse', output_format: 'png' }, { key: key.key });
      case 'audio.speech':
        return call(api, '/v1/audio/speech', { text: 'Hello there.', output_format: 'mp3' }, { key: key.key });
      case 'audio.transcribe':
        return call(api, '/v1/audio/transcribe', { input_upload_id: audioId, timestamps: 'segment' }, { key: key.key });
    }
  };

  const expectNoLeak = (result: CallResult) => {
    expectNothingShown(result, [FAKE_PROVIDER_DIAGNOSTIC, 'replica 9', CONTRACT_SECRET], fake.port);
  };

  describe(`${spec.type}: every operation it serves, through the SDK, charged once`, () => {
    it.each(operations)('%s succeeds', async (op) => {
      const before = await remainingUnits(key.id);
      const result = await run(op);
      expect(result.status, result.text).toBe(200);
      expect(result.json.usage.charged_units).toBe(UNITS[op]);
      expect(await remainingUnits(key.id)).toBe(before - UNITS[op]);
      expect(fake.requests.length).toBeGreaterThan(0);
      expect(spec.secretIn(fake.requests[0]!)).toContain(CONTRACT_SECRET);
      expectNoLeak(result);
      if (op === 'text.generate' && spec.expectText) expect(result.json.output.text).toBe(spec.expectText);
      if (op === 'code.generate' && spec.expectCode) expect(result.json.output).toEqual(spec.expectCode);
      if (op === 'audio.transcribe' && spec.expectTranscript) expect(result.json.output).toEqual(spec.expectTranscript);
      if (op === 'images.generate' || op === 'audio.speech') {
        const file = await filesGet(new Request(result.json.output.url));
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe(op === 'images.generate' ? 'image/png' : 'audio/mpeg');
      }
      spec.sent?.[op]?.(fake);
      // What the call used is on its usage event, as reported or estimated, never nothing (budgets count it).
      const { rows } = await getPool().query(
        `SELECT input_tokens, output_tokens, characters, audio_seconds, images, video_seconds
           FROM usage_events WHERE api_key_id = $1 AND operation = $2 ORDER BY created_at DESC LIMIT 1`,
        [key.id, op],
      );
      expect(
        Object.values(rows[0]).some((quantity) => quantity !== null),
        JSON.stringify(rows[0]),
      ).toBe(true);
    });
  });

  const failures: [string, FakeProviderMode, ProviderFailureKind][] = [
    ['a provider error (HTTP 503)', { kind: 'status', status: 503 }, 'server_error'],
    ['a timeout', { kind: 'hang' }, 'timeout'],
    ['a malformed answer', { kind: 'garbage' }, 'malformed'],
  ];

  describe(`${spec.type}: failures are 503 provider_unavailable, nothing charged, nothing shown`, () => {
    for (const [what, mode, kind] of failures) {
      // One retry: once in a full CI run (never alone), azure's speech timeout case hung for the
      // test's 60 s; the cause is not found yet (see the session note), the assertions are unchanged.
      it.each(operations)(`${what}: %s`, { retry: 1 }, async (op) => {
        fake.setMode(mode);
        const before = await remainingUnits(key.id);
        const result = await run(op);
        expectEnvelope(result, 503, 'provider_unavailable');
        expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expectNoLeak(result);
        expect(await remainingUnits(key.id)).toBe(before);
        const { rows } = await getPool().query(
          `SELECT outcome::text, units FROM usage_events WHERE api_key_id = $1 AND operation = $2 ORDER BY created_at DESC LIMIT 1`,
          [key.id, op],
        );
        expect(rows[0]).toEqual({ outcome: 'failed', units: 0 });
        // The failure's kind (for fallbacks), read from the engine itself.
        const engine = await resolveEngine(`${name}:${spec.models[op]}`);
        const error = await callEngineDirectly(engine, op).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ProviderUnavailableError);
        expect((error as ProviderUnavailableError).kind).toBe(kind);
      });
    }
  });
}
