import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { imagesGenerateResponse } from '../../../server/contract/generation';
import { jobSchema, submittedJobSchema } from '../../../server/contract/jobs-and-uploads';
import { cli } from '../support/cli';

// Media through the built product (`npm start`): the engines load sharp on first use, inside
// Next's server bundle and inside the video worker the app starts; this is where that is shown.

let key: string;

test.beforeAll(() => {
  key = cli<{ key: string }>('keys', 'create', '--package', 'starter').key;
});

const headers = () => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  'Idempotency-Key': `e2e-media-${randomBytes(9).toString('base64url')}`,
});

test('images.generate in every format: the output URL serves that image, privately', async ({ request }) => {
  const magic = { png: '89504e47', jpeg: 'ffd8ff', webp: '52494646' } as const;
  for (const format of ['png', 'jpeg', 'webp'] as const) {
    const response = await request.post('/v1/images/generate', {
      headers: headers(),
      data: { prompt: 'a lighthouse at dusk', output_format: format },
    });
    expect(response.status(), await response.text()).toBe(200);
    const body = imagesGenerateResponse.parse(await response.json());
    expect(body.usage.charged_units).toBe(5);

    const file = await request.get(body.output.url);
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toBe(`image/${format}`);
    expect(file.headers()['cache-control']).toBe('no-store');
    expect((await file.body()).subarray(0, 4).toString('hex')).toContain(magic[format]);
  }
});

test("videos.generate: the job the app's worker runs succeeds and its result is an MP4", async ({ request }) => {
  test.setTimeout(120_000);
  const submitted = await request.post('/v1/videos/generate', { headers: headers(), data: { prompt: 'waves on a beach' } });
  expect(submitted.status(), await submitted.text()).toBe(202);
  const job = submittedJobSchema.parse(await submitted.json());

  let current = job as ReturnType<typeof jobSchema.parse>;
  await expect
    .poll(
      async () => {
        const answer = await request.get(`/v1/jobs/${job.job_id}`, { headers: { Authorization: `Bearer ${key}` } });
        current = jobSchema.parse(await answer.json());
        return current.status;
      },
      { timeout: 100_000, intervals: [500] },
    )
    .toMatch(/^(succeeded|failed)$/);
  expect(current.error).toBeNull();
  expect(current.status).toBe('succeeded');
  expect(current.usage.charged_units).toBe(20);

  const file = await request.get(current.result!.url);
  expect(file.status()).toBe(200);
  expect(file.headers()['content-type']).toBe('video/mp4');
  expect((await file.body()).subarray(4, 8).toString('latin1')).toBe('ftyp');
});
