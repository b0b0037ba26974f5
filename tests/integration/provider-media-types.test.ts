import { describe, expect } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { describeProviderContract } from './support/providers/provider-contract';
import { FAKE_CODE, FAKE_TRANSCRIPT } from './support/providers/protocols/media-samples';
import { fakeBedrockText, startMediaApisFake } from './support/providers/protocols/media-apis';

// assemblyai, luma, replicate and amazon-bedrock, each through its own @ai-sdk package, against
// fakes of their APIs. replicate's videos: provider-videos-v1.test.ts.

process.env.PROVIDER_TIMEOUT_MS = '1500'; // a hang is cut here; room for a loaded machine's real calls
process.env.PROVIDER_MAX_RETRIES = '0';
resetConfigForTests();

describe('assemblyai', () => {
  describeProviderContract({
    type: 'assemblyai',
    start: async () => {
      const fake = await startMediaApisFake();
      return { fake, entry: { base_url: fake.origin } };
    },
    models: { 'audio.transcribe': 'best' },
    settings: { 'audio.transcribe': { languages: ['en'] } },
    expectTranscript: FAKE_TRANSCRIPT,
    secretIn: (request) => request.headers.authorization,
    sent: {
      'audio.transcribe': (fake) => {
        expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
          'POST /v2/upload',
          'POST /v2/transcript',
          'GET /v2/transcript/tr-fake-1',
        ]);
        expect(fake.requests[0]!.body.subarray(0, 4).toString()).toBe('RIFF');
        expect(fake.requests[1]!.json).toMatchObject({ audio_url: `${fake.origin}/files/uploaded.wav`, language_code: 'en' });
      },
    },
  });
});

describe('luma', () => {
  describeProviderContract({
    type: 'luma',
    start: async () => {
      const fake = await startMediaApisFake();
      return { fake, entry: { base_url: fake.origin } };
    },
    models: { 'images.generate': 'photon-1' },
    secretIn: (request) => request.headers.authorization,
    sent: { 'images.generate': (fake) => expect(fake.requests[0]!.json).toMatchObject({ prompt: 'a lighthouse', model: 'photon-1' }) },
  });
});

describe('replicate', () => {
  describeProviderContract({
    type: 'replicate',
    start: async () => {
      const fake = await startMediaApisFake();
      return { fake, entry: { base_url: `${fake.origin}/v1` } };
    },
    models: { 'images.generate': 'black-forest-labs/flux-schnell' },
    secretIn: (request) => request.headers.authorization,
    sent: {
      'images.generate': (fake) => {
        expect(fake.requests[0]!.path).toBe('/v1/models/black-forest-labs/flux-schnell/predictions');
        expect(fake.requests[0]!.json.input).toMatchObject({ prompt: 'a lighthouse', num_outputs: 1 });
      },
    },
  });
});

describe('amazon-bedrock', () => {
  describeProviderContract({
    type: 'amazon-bedrock',
    start: async () => {
      const fake = await startMediaApisFake();
      return { fake, entry: { base_url: fake.origin, region: 'us-east-1' } };
    },
    models: {
      'text.generate': 'amazon.nova-pro-v1:0',
      'code.generate': 'amazon.nova-pro-v1:0',
      'images.generate': 'amazon.nova-canvas-v1:0',
    },
    expectText: fakeBedrockText('amazon.nova-pro-v1:0'),
    expectCode: FAKE_CODE,
    secretIn: (request) => request.headers.authorization,
    sent: {
      'text.generate': (fake) => expect(fake.requests[0]!.path).toBe(`/model/${encodeURIComponent('amazon.nova-pro-v1:0')}/converse`),
      'images.generate': (fake) => expect(fake.requests[0]!.json.taskType).toBe('TEXT_IMAGE'),
    },
  });
});
