import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool } from '@/server/db/client';
import { renderVideo } from '@/server/providers/local/video';
import { api, call, createTestKey, type TestKey } from '../helpers/api';
import { samplePng, sampleWav, verifiedUpload } from './support/storage/uploads';
import { operatorCaller } from './trpc/helpers';

// The upload a call consumed is recorded on its usage event, by the statement that writes the
// event (capture on success, release on failure), so an upload's page lists every call that used it.

let main: TestKey;

beforeAll(async () => {
  main = await createTestKey({
    quota: 1000,
    operations: {
      'images.generate': { engine: 'local', units: 5, output_formats: ['png'], input_uploads: true },
      'audio.transcribe': { engine: 'local', units: 4 },
    },
  });
});

afterAll(() => disconnectDb());

async function usageOfRequest(requestId: string) {
  const { rows } = await getPool().query<{ operation: string; outcome: string; units: number; input_upload_id: string | null }>(
    'SELECT operation, outcome, units, input_upload_id FROM usage_events WHERE request_id = $1',
    [requestId],
  );
  return rows;
}

const requestIdOf = (result: { headers: Headers }) => result.headers.get('x-request-id')!;

describe('usage events name the upload they consumed', () => {
  it('images.generate with input_upload_id records it; without one records none', async () => {
    const imageId = await verifiedUpload(
      main.key,
      { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' },
      await samplePng(),
    );
    const used = await call(api, '/v1/images/generate', { prompt: 'from the input', input_upload_id: imageId }, { key: main.key });
    expect(used.status, used.text).toBe(200);
    expect(await usageOfRequest(requestIdOf(used))).toEqual([
      { operation: 'images.generate', outcome: 'succeeded', units: 5, input_upload_id: imageId },
    ]);
    const plain = await call(api, '/v1/images/generate', { prompt: 'no input' }, { key: main.key });
    expect(plain.status, plain.text).toBe(200);
    expect(await usageOfRequest(requestIdOf(plain))).toEqual([
      { operation: 'images.generate', outcome: 'succeeded', units: 5, input_upload_id: null },
    ]);
  });

  it('audio.transcribe records its upload on success and on a failed (released) call; the upload lists both', async () => {
    const audioId = await verifiedUpload(
      main.key,
      { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' },
      await sampleWav(),
    );
    const transcribed = await call(api, '/v1/audio/transcribe', { input_upload_id: audioId }, { key: main.key });
    expect(transcribed.status, transcribed.text).toBe(200);
    expect(await usageOfRequest(requestIdOf(transcribed))).toEqual([
      { operation: 'audio.transcribe', outcome: 'succeeded', units: 4, input_upload_id: audioId },
    ]);

    // A video without sound fails in the engine call, after the units were held: released, 0 units.
    const silent = (await renderVideo({ prompt: 'no sound', durationSeconds: 0.5 })).bytes;
    const videoId = await verifiedUpload(main.key, { purpose: 'video_input', mime_type: 'video/mp4', filename: 'silent.mp4' }, silent);
    const failed = await call(api, '/v1/audio/transcribe', { input_upload_id: videoId }, { key: main.key });
    expect(failed.status, failed.text).toBe(422);
    expect(await usageOfRequest(requestIdOf(failed))).toEqual([
      { operation: 'audio.transcribe', outcome: 'failed', units: 0, input_upload_id: videoId },
    ]);

    const { caller } = await operatorCaller();
    expect(await caller.uploads.usedBy({ id: audioId })).toEqual([
      {
        request_id: requestIdOf(transcribed),
        operation: 'audio.transcribe',
        outcome: 'succeeded',
        units: 4,
        created_at: expect.any(String),
        job_id: null,
        has_usage_row: true,
      },
    ]);
    expect(await caller.uploads.usedBy({ id: videoId })).toEqual([
      expect.objectContaining({ request_id: requestIdOf(failed), outcome: 'failed', units: 0, has_usage_row: true }),
    ]);
  });

  it('a call refused before any unit was held (step 7) records nothing', async () => {
    const imageId = await verifiedUpload(main.key, { purpose: 'image_input', mime_type: 'image/png' }, await samplePng());
    const refused = await call(api, '/v1/audio/transcribe', { input_upload_id: imageId }, { key: main.key });
    expect(refused.status, refused.text).toBe(422);
    const { caller } = await operatorCaller();
    expect(await caller.uploads.usedBy({ id: imageId })).toEqual([]);
  });
});
