import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { z } from 'zod';
import { errorResponseSchema } from '@/server/contract/errors';
import { disconnectDb } from '@/server/db/client';
import { ERROR_CATALOG, type ErrorCode } from '@/server/domain/errors';
import { V1_ROUTES } from '@/server/surfaces/v1';
import { api, call, createTestKey, type CallResult, type TestKey } from '../helpers/api';

// Every media, upload and job route under malformed input (issue 7): never a 5xx, always the
// envelope, the key never echoed. The key has no units, so nothing valid reaches an engine
// (402), which keeps the run fast while every earlier step is exercised.

const TOTAL = Number(process.env.FUZZ_RUNS ?? 1500);

afterAll(() => disconnectDb());

let k: TestKey;
beforeAll(async () => {
  k = await createTestKey({
    quota: 0,
    operations: {
      'images.generate': { engine: 'local', units: 5, output_formats: ['png'], styles: ['photo'], input_uploads: true },
      'videos.generate': { engine: 'local', units: 20, input_uploads: true },
      'audio.speech': { engine: 'local', units: 3, voices: ['alloy'], output_formats: ['wav'] },
      'audio.transcribe': { engine: 'local', units: 4, timestamps: ['segment', 'none'] },
    },
  });
});

/** Fuzzed by pipeline-fuzz.test.ts, with the checks of a paid answer. */
const FUZZED_THERE = ['/v1/text/generate', '/v1/code/generate'];

/** Every other POST of the route table, at a concrete path, with its request schema's field names. */
const postRoutes = V1_ROUTES.filter((route) => route.doc.method === 'POST' && !FUZZED_THERE.includes(route.doc.path)).map(({ doc }) => ({
  path: doc.path.replace('{uploadId}', 'upl_AAAAAAAAAAAAAAAAAAAAAAAA').replace('{jobId}', 'job_AAAAAAAAAAAAAAAAAAAAAAAA'),
  fields: Object.keys((doc.request as z.ZodObject).shape),
}));

function checkEnvelopeOrSuccess(result: CallResult): void {
  const context = `status ${result.status}: ${result.text.slice(0, 300)}`;
  if (result.status >= 500) throw new Error(`server error ${context}`);
  if (result.text.includes(k.key)) throw new Error('the API key was echoed');
  if (result.headers.get('cache-control') !== 'no-store') throw new Error(`no Cache-Control: no-store (${context})`);
  if (result.status < 300) return;
  const parsed = errorResponseSchema.safeParse(result.json);
  if (!parsed.success) throw new Error(`not the envelope: ${context}`);
  if (parsed.data.error.request_id !== result.headers.get('x-request-id')) throw new Error('request_id differs from X-Request-Id');
  if (ERROR_CATALOG[parsed.data.error.code as ErrorCode].status !== result.status) throw new Error(`wrong status for code: ${context}`);
}

const value = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(
    'png',
    'webp',
    'gif',
    'alloy',
    'en',
    'en-US',
    'segment',
    'none',
    'image_input',
    'audio_input',
    'video_input',
    'image/png',
    'audio/wav',
    'video/mp4',
    'upl_AAAAAAAAAAAAAAAAAAAAAAAA',
    'upl_',
    'a'.repeat(64),
    '',
    'photo',
  ),
  fc.integer({ min: -5, max: 200_000_000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
);

describe('fuzzing the media, upload and job routes', () => {
  it('random bodies built from each route’s own field names', async () => {
    const route = fc.constantFrom(...postRoutes);
    const body = (fields: readonly string[]) =>
      fc.dictionary(
        fields.length > 0 ? fc.oneof(fc.constantFrom(...fields), fc.string({ maxLength: 8 })) : fc.string({ maxLength: 8 }),
        value,
        {
          maxKeys: 6,
        },
      );
    await fc.assert(
      fc.asyncProperty(
        route.chain((r) => fc.tuple(fc.constant(r), body(r.fields))),
        async ([r, payload]) => {
          checkEnvelopeOrSuccess(await call(api, r.path, payload, { key: k.key }));
        },
      ),
      { numRuns: Math.round(TOTAL * 0.6) },
    );
  });

  it('arbitrary raw bytes and headers', async () => {
    const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...postRoutes),
        fc.oneof(fc.string({ maxLength: 120 }), fc.json({ maxDepth: 3 })),
        fc.option(headerValue),
        fc.option(headerValue),
        fc.option(headerValue),
        async (r, raw, contentType, idempotencyKey, authorization) => {
          const headers: Record<string, string> = {};
          if (authorization !== null) headers.Authorization = authorization;
          const result = await call(api, r.path, undefined, {
            key: authorization === null ? k.key : null,
            rawBody: raw,
            method: 'POST',
            contentType,
            idempotencyKey,
            headers,
          });
          checkEnvelopeOrSuccess(result);
        },
      ),
      { numRuns: Math.round(TOTAL * 0.3) },
    );
  });

  it('GET /v1/jobs/{jobId} with arbitrary ids and keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), fc.boolean(), async (jobId, withKey) => {
        const result = await call(api, `/v1/jobs/${encodeURIComponent(jobId)}`, undefined, {
          key: withKey ? k.key : null,
        });
        if (![401, 404].includes(result.status)) throw new Error(`unexpected ${result.status}: ${result.text}`);
        checkEnvelopeOrSuccess(result);
      }),
      { numRuns: Math.round(TOTAL * 0.1) },
    );
  });
});
