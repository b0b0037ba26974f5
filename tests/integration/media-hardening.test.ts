import { describe, expect, it } from 'vitest';
import { getPrisma } from '@/server/db/client';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { id3WrappedWav, mp3WithLargeTag } from '../helpers/crafted-media';
import { complete, createUpload, putBytes, sha256Hex, verifiedUpload } from './support/storage/uploads';

// Untrusted media (SECURITY.md, "Customer media and the decoder"): an upload whose ID3 tag hides
// another container is refused at complete, before any decoder sees it; a real tagged MP3 is not.

const OPS = { 'audio.transcribe': { engine: 'local', units: 4, timestamps: ['segment', 'none'] } };
const MP3 = { purpose: 'audio_input', mime_type: 'audio/mpeg', filename: 'voice.mp3' } as const;

describe('the crafted ID3-wrapped upload', () => {
  it('is refused at complete (422 content_mismatch on mime_type), stays pending, and nothing is charged', async () => {
    const key = await createTestKey({ operations: OPS, quota: 50 });
    const crafted = await id3WrappedWav();
    const created = await createUpload(key.key, MP3, crafted);
    expect(created.status, created.text).toBe(201);
    expect((await putBytes(created.json.upload_url, crafted, 'audio/mpeg')).status).toBe(200);
    const refused = await complete(key.key, created.json.upload_id, sha256Hex(crafted));
    expectEnvelope(refused, 422, 'validation_error');
    expect(refused.json.error.details.issues).toEqual([
      { path: 'mime_type', code: 'content_mismatch', message: expect.stringMatching(/MPEG audio frames/) },
    ]);
    expect((await getPrisma().upload.findUniqueOrThrow({ where: { id: created.json.upload_id } })).status).toBe('pending');

    const used = await call(api, '/v1/audio/transcribe', { input_upload_id: created.json.upload_id }, { key: key.key });
    expectEnvelope(used, 422, 'validation_error'); // an unverified upload is no input
    expect(await remainingUnits(key.id)).toBe(50);
  });

  it('a real MP3 behind a large ID3 tag is verified and transcribed', async () => {
    const key = await createTestKey({ operations: OPS, quota: 50 });
    const id = await verifiedUpload(key.key, MP3, await mp3WithLargeTag());
    const result = await call(api, '/v1/audio/transcribe', { input_upload_id: id, timestamps: 'segment' }, { key: key.key });
    expect(result.status, result.text).toBe(200);
    expect(result.json.output.segments.length).toBeGreaterThan(0);
    expect(await remainingUnits(key.id)).toBe(46);
  });
});
