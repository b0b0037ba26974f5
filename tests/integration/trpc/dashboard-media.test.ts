import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import type { Prisma } from '@/server/db/generated/client';
import { verifyObjectUrl } from '@/server/storage/signed-urls';
import { expectTrpcError, operatorCaller, seedPackage, uniqueSlug } from './helpers';

afterAll(() => disconnectDb());

async function key(caller: Awaited<ReturnType<typeof operatorCaller>>['caller'], label: string) {
  const slug = uniqueSlug('pk-media');
  await seedPackage(slug, 1000);
  return caller.keys.issue({ packageSlug: slug, label });
}

const newId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

type JobFields = Omit<Prisma.JobUncheckedCreateInput, 'apiKeyId' | 'operation' | 'engine' | 'units'>;

/** A videos.generate job row of the key, 5 units on the local engine. */
async function createVideoJob(apiKeyId: string, fields: JobFields) {
  await getPrisma().job.create({ data: { apiKeyId, operation: 'videos.generate', engine: 'local', units: 5, ...fields } });
}

/** A pending image upload of the key, 10 bytes, expiring in an hour. */
async function createPendingUpload(apiKeyId: string, id: string) {
  await getPrisma().upload.create({
    data: {
      id,
      apiKeyId,
      purpose: 'image_input',
      filename: 'cat.png',
      mimeType: 'image/png',
      sizeBytes: 10,
      sha256: 'a'.repeat(64),
      storageKey: `uploads/${apiKeyId}/${id}`,
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
}

describe('jobs: filters and a fresh link to the video', () => {
  it('filters by key text, operation, status and day; signs a new short-lived URL on each read', async () => {
    const { caller } = await operatorCaller();
    const marker = randomUUID().slice(0, 8);
    const mine = await key(caller, `video buyer ${marker}`);
    const jobId = newId('job');
    await createVideoJob(mine.id, {
      id: jobId,
      status: 'succeeded',
      input: { prompt: 'a boat' },
      requestId: `req_${marker}`,
      resultKey: `outputs/${mine.id}/${jobId}.mp4`,
      resultMimeType: 'video/mp4',
    });
    const today = new Date().toISOString().slice(0, 10);
    expect(
      (await caller.jobs.list({ key: marker, operation: 'videos.generate', status: 'succeeded', from: today, to: today })).items.map(
        (job) => job.id,
      ),
    ).toEqual([jobId]);
    expect((await caller.jobs.list({ key: mine.prefix, status: 'failed' })).items).toEqual([]);
    expect((await caller.jobs.list({ key: marker, to: '2001-01-01' })).items).toEqual([]);
    const first = await caller.jobs.resultLink({ id: jobId });
    const second = await caller.jobs.resultLink({ id: jobId });
    expect(first).toMatchObject({ mime_type: 'video/mp4' });
    expect(first!.url).toMatch(/^\/files\/outputs\//);
    expect(second!.url).not.toBe(first!.url);
    expect(verifyObjectUrl(new URL(first!.url, 'http://localhost'))).toEqual({
      ok: true,
      key: `outputs/${mine.id}/${jobId}.mp4`,
      contentType: 'video/mp4',
    });
    expect(Date.parse(first!.expires_at) - Date.now()).toBeLessThanOrEqual(901_000); // OUTPUT_URL_TTL_SECONDS, rounded up to a whole second
    await expectTrpcError(caller.jobs.resultLink({ id: 'job_missing' }), 'NOT_FOUND', 'not_found');
  });

  it('a job without a result has no link', async () => {
    const { caller } = await operatorCaller();
    const mine = await key(caller, 'pending video');
    const jobId = newId('job');
    await createVideoJob(mine.id, { id: jobId, status: 'running', input: { prompt: 'x' }, requestId: 'req_x' });
    expect(await caller.jobs.resultLink({ id: jobId })).toBeNull();
  });

  it('a video retention deleted has no link (retention review: a fresh URL that answered 404)', async () => {
    const { caller } = await operatorCaller();
    const mine = await key(caller, 'old video');
    const jobId = newId('job');
    const resultKey = `outputs/${mine.id}/${jobId}.mp4`;
    await createVideoJob(mine.id, {
      id: jobId,
      status: 'succeeded',
      input: { prompt: 'x' },
      requestId: 'req_old',
      resultKey,
      resultMimeType: 'video/mp4',
    });
    await getPrisma().storedOutput.create({ data: { storageKey: resultKey, apiKeyId: mine.id, sizeBytes: 100 } });
    expect(await caller.jobs.resultLink({ id: jobId })).not.toBeNull();
    await getPrisma().storedOutput.update({ where: { storageKey: resultKey }, data: { deletedAt: new Date() } });
    expect(await caller.jobs.resultLink({ id: jobId })).toBeNull();
  });
});

describe('uploads: preview link and the calls that used it', () => {
  it('links verified bytes only, and lists the video jobs still running on the upload', async () => {
    const { caller } = await operatorCaller();
    const mine = await key(caller, 'uploader');
    const uploadId = newId('upl');
    const sealed = `uploads/${mine.id}/${uploadId}.0a1b2c3d4e5f.verified`;
    await createPendingUpload(mine.id, uploadId);
    expect(await caller.uploads.fileLink({ id: uploadId })).toBeNull();
    await getPrisma().upload.update({ where: { id: uploadId }, data: { status: 'verified', storageKey: sealed, verifiedAt: new Date() } });
    const link = await caller.uploads.fileLink({ id: uploadId });
    expect(verifyObjectUrl(new URL(link!.url, 'http://localhost'))).toEqual({ ok: true, key: sealed, contentType: 'image/png' });
    expect(await caller.uploads.usedBy({ id: uploadId })).toEqual([]);
    const jobId = newId('job');
    await createVideoJob(mine.id, {
      id: jobId,
      status: 'submitted',
      requestId: 'req_used',
      input: { prompt: 'animate', inputUpload: { uploadId, storageKey: sealed, mimeType: 'image/png' } },
    });
    // A job still running has no usage event yet: listed with the units it holds.
    expect(await caller.uploads.usedBy({ id: uploadId })).toEqual([
      expect.objectContaining({ job_id: jobId, request_id: 'req_used', outcome: 'submitted', units: 5, has_usage_row: false }),
    ]);
    expect((await caller.uploads.get({ id: uploadId })).deleted_at).toBeNull();
    // Retention deleted its bytes: shown as such, and no link (retention review: "verified", with links that answered 404).
    const deletedAt = new Date();
    await getPrisma().upload.update({ where: { id: uploadId }, data: { deletedAt } });
    expect((await caller.uploads.get({ id: uploadId })).deleted_at).toBe(deletedAt.toISOString());
    expect(await caller.uploads.fileLink({ id: uploadId })).toBeNull();
    await expectTrpcError(caller.uploads.fileLink({ id: 'upl_missing' }), 'NOT_FOUND', 'not_found');
  });
});

describe('jobs and uploads page through every row with the cursors they return', () => {
  /** Every id of a list, following nextCursor with pages of 2, then back with prevCursor from the last page. */
  async function pageThrough(
    list: (cursor?: string) => Promise<{ items: { id: string }[]; nextCursor: string | null; prevCursor: string | null }>,
  ) {
    const forward: string[][] = [];
    let page = await list();
    forward.push(page.items.map((item) => item.id));
    while (page.nextCursor) {
      page = await list(page.nextCursor);
      forward.push(page.items.map((item) => item.id));
    }
    const backward: string[][] = [];
    while (page.prevCursor) {
      page = await list(page.prevCursor);
      backward.unshift(page.items.map((item) => item.id));
    }
    return { forward, backward };
  }

  it('jobs (ids job_...) and uploads (upl_...): forward and back, no row missed or repeated', async () => {
    const { caller } = await operatorCaller();
    const mine = await key(caller, 'pager');
    const jobIds: string[] = [];
    const uploadIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const jobId = newId('job');
      jobIds.unshift(jobId); // newest first
      await createVideoJob(mine.id, { id: jobId, status: 'submitted', requestId: `req_page_${i}`, input: { prompt: 'p' } });
      const uploadId = newId('upl');
      uploadIds.unshift(uploadId);
      await createPendingUpload(mine.id, uploadId);
    }
    const pagesOf = (ids: string[]) => [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)];
    const jobs = await pageThrough((cursor) => caller.jobs.list({ apiKeyId: mine.id, limit: 2, cursor }));
    expect(jobs.forward).toEqual(pagesOf(jobIds));
    expect(jobs.backward).toEqual(pagesOf(jobIds).slice(0, 2));
    const uploads = await pageThrough((cursor) => caller.uploads.list({ apiKeyId: mine.id, limit: 2, cursor }));
    expect(uploads.forward).toEqual(pagesOf(uploadIds));
    expect(uploads.backward).toEqual(pagesOf(uploadIds).slice(0, 2));
    // A cursor of one list is not another's: a job's position in the keys' list is refused, never a 500.
    const jobCursor = (await caller.jobs.list({ apiKeyId: mine.id, limit: 2 })).nextCursor!;
    await expectTrpcError(caller.keys.list({ cursor: jobCursor }), 'UNPROCESSABLE_CONTENT', 'validation_error');
  });
});
