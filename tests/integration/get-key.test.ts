import { describe, expect, it } from 'vitest';
import { keySchema } from '@/server/contract/key';
import { getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { issueKey } from '@/server/domain/keys/issue-key';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';

// GET /v1/key: a key of each kind describes itself (package, allowed settings without engines,
// limits, remaining units, expiry); 401 for a key that is not active; rate limited; never charged.

const getKey = (key: string | null) => call(api, '/v1/key', undefined, { key });

describe('GET /v1/key', () => {
  it('describes a text-only key with no expiry, and follows its remaining units; the call itself is never charged', async () => {
    const owner = await createTestKey({ quota: 50, rpm: 120, concurrency: 3 });
    const first = await getKey(owner.key);
    expect(first.status, first.text).toBe(200);
    const described = keySchema.parse(first.json);
    expect(described).toEqual({
      object: 'key',
      prefix: expect.stringMatching(/^wgs_live_/),
      package: { slug: owner.slug, name: `Test ${owner.slug}`, version: 1 },
      operations: {
        'text.generate': { units: 1, output_formats: ['text', 'markdown', 'json'] },
        'code.generate': { units: 2 },
      },
      limits: { requests_per_minute: 120, concurrency: 3, max_upload_bytes: 104_857_600, max_stored_bytes: 1_048_576_000 },
      remaining_units: 50,
      expires_at: null,
    });
    expect(owner.key.startsWith(described.prefix)).toBe(true);
    expect(first.headers.get('ratelimit-limit')).toBe('120');
    expect(first.headers.get('ratelimit-remaining')).toBe('119');
    expect(first.headers.get('cache-control')).toBe('no-store');

    const generated = await call(api, '/v1/text/generate', { input: 'hello' }, { key: owner.key });
    expect(generated.status, generated.text).toBe(200);
    expect(keySchema.parse((await getKey(owner.key)).json).remaining_units).toBe(49);
    expect(await remainingUnits(owner.id)).toBe(49);
  });

  it('describes a media key with an expiry: every operation with its allowed settings, never the engine or provider', async () => {
    const provider = 'descprov';
    const media = await createTestKey({
      quota: 500,
      maxUploadBytes: 10_485_760,
      providers: { [provider]: { type: 'openai', base_url: 'http://127.0.0.1:9/v1' } },
      operations: {
        'images.generate': {
          engine: [`${provider}:gpt-image-1`, 'local'],
          units: 5,
          output_formats: ['png', 'webp'],
          styles: ['photo'],
          input_uploads: true,
        },
        'videos.generate': { engine: 'local', units: 20 },
        'audio.speech': { engine: 'local', units: 3, voices: ['alloy'], languages: ['en'], output_formats: ['mp3'] },
        'audio.transcribe': { engine: `${provider}:whisper-1`, units: 4, timestamps: ['segment', 'none'] },
      },
    });
    const expiresAt = new Date(Date.now() + 30 * 24 * 3600 * 1000);
    const expiring = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: media.slug, expiresAt });
    const result = await getKey(expiring.key);
    expect(result.status, result.text).toBe(200);
    const described = keySchema.parse(result.json);
    expect(described.expires_at).toBe(expiresAt.toISOString());
    expect(described.limits.max_upload_bytes).toBe(10_485_760);
    expect(described.limits.max_stored_bytes).toBe(104_857_600); // 10 x max_upload_bytes: the package sets none
    expect(described.operations).toEqual({
      'images.generate': { units: 5, output_formats: ['png', 'webp'], styles: ['photo'], input_uploads: true },
      'videos.generate': { units: 20, input_uploads: false },
      'audio.speech': { units: 3, voices: ['alloy'], languages: ['en'], output_formats: ['mp3'] },
      'audio.transcribe': { units: 4, timestamps: ['segment', 'none'] },
    });
    expect(result.text).not.toContain(provider);
    expect(result.text).not.toContain('engine');
    expect(result.text).not.toContain('local');
    // The first key of the package has no expiry.
    expect(keySchema.parse((await getKey(media.key)).json).expires_at).toBeNull();
  });

  it('is 401 for a missing, unknown or revoked key, 429 past the minute, and 405 for POST', async () => {
    expectEnvelope(await getKey(null), 401, 'invalid_api_key');
    expectEnvelope(await getKey('wgs_live_notarealkeynotarealkeynotarealkey12'), 401, 'invalid_api_key');
    const revoked = await createTestKey();
    await revokeKey(getSqlDb(), CLI_ACTOR, revoked.id);
    expectEnvelope(await getKey(revoked.key), 401, 'invalid_api_key');

    const limited = await createTestKey({ rpm: 2 });
    expect((await getKey(limited.key)).status).toBe(200);
    expect((await getKey(limited.key)).status).toBe(200);
    const refused = await getKey(limited.key);
    expectEnvelope(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The GETs spent the minute: the next paid call is refused too.
    expectEnvelope(await call(api, '/v1/text/generate', { input: 'x' }, { key: limited.key }), 429, 'rate_limited');
    expect(await remainingUnits(limited.id)).toBe(1000);

    const post = await call(api, '/v1/key', {}, { key: limited.key });
    expectEnvelope(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});
