import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { expectTrpcError, operatorCaller, operatorWithPackage, seedPackage, uniqueSlug, usage } from './helpers';

afterAll(() => disconnectDb());

async function keyWithPackage(caller: Awaited<ReturnType<typeof operatorCaller>>['caller']) {
  const slug = uniqueSlug('pk-report');
  await seedPackage(slug, 1000);
  return caller.keys.issue({ packageSlug: slug, label: 'reports' });
}

describe('overview', () => {
  it('counts units per day, requests per operation, error rates and recent failures', async () => {
    const { caller } = await operatorCaller();
    const before = await caller.overview.get({ days: 7 });
    const key = await keyWithPackage(caller);
    await usage(key.id, 'succeeded', 4, 'text.generate');
    await usage(key.id, 'succeeded', 6, 'code.generate');
    await usage(key.id, 'failed', 0, 'code.generate');
    const after = await caller.overview.get({ days: 7 });
    expect(after.daily).toHaveLength(7);
    expect(after.totals.units - before.totals.units).toBe(10);
    expect(after.totals.requests - before.totals.requests).toBe(3);
    expect(after.totals.failed - before.totals.failed).toBe(1);
    const code = (o: typeof after) => o.operations.find((op) => op.operation === 'code.generate') ?? { requests: 0, failed: 0 };
    expect(code(after).requests - code(before).requests).toBe(2);
    expect(code(after).failed - code(before).failed).toBe(1);
    expect(after.recent_failures[0]).toMatchObject({ api_key_id: key.id, error_code: 'provider_unavailable', outcome: 'failed' });
    await expectTrpcError(caller.overview.get({ days: 0 }), 'BAD_REQUEST');
  });
});

describe('active keys', () => {
  it('are counted as the keys list shows them: an expired key is not (reports audit: both overviews counted it)', async () => {
    const { caller } = await operatorCaller();
    const key = await keyWithPackage(caller);
    const counts = async () => [
      (await caller.overview.get({ days: 7 })).totals.active_keys,
      (await caller.refusals.overview()).totals.active_keys,
    ];
    const before = await counts();
    await getPrisma().apiKey.update({ where: { id: key.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await counts()).toEqual(before.map((count) => count - 1));
    expect((await caller.keys.list({ status: 'active' })).items.some((item) => item.id === key.id)).toBe(false);
  });
});

describe('usage events', () => {
  it('lists with filters and keyset paging', async () => {
    const { caller } = await operatorCaller();
    const key = await keyWithPackage(caller);
    for (let i = 0; i < 5; i++) await usage(key.id, i === 2 ? 'failed' : 'succeeded', i);
    const first = await caller.usage.list({ apiKeyId: key.id, limit: 3 });
    const second = await caller.usage.list({ apiKeyId: key.id, limit: 3, cursor: first.nextCursor! });
    expect([...first.items, ...second.items].map((event) => event.units)).toEqual([4, 3, 2, 1, 0]);
    expect(second.nextCursor).toBeNull();
    const failed = await caller.usage.list({ apiKeyId: key.id, outcome: 'failed' });
    expect(failed.items).toHaveLength(1);
    const today = new Date().toISOString().slice(0, 10);
    expect((await caller.usage.list({ apiKeyId: key.id, from: today, to: today })).items.length).toBeGreaterThanOrEqual(4);
    expect((await caller.usage.list({ apiKeyId: key.id, from: '2000-01-01', to: '2000-01-02' })).items).toEqual([]);
  });

  it('rejects bad filters and a forged cursor', async () => {
    const { caller } = await operatorCaller();
    // @ts-expect-error checked at run time
    await expectTrpcError(caller.usage.list({ operation: 'text.delete' }), 'BAD_REQUEST');
    await expectTrpcError(caller.usage.list({ from: 'yesterday' }), 'BAD_REQUEST');
    // A range out of order names no day: refused on `to` (as the page and the CSV export refuse it), never an empty list.
    for (const call of [caller.usage.list, caller.usage.totals, caller.usage.csv, caller.jobs.list]) {
      const error = await expectTrpcError(call({ from: '2026-12-10', to: '2026-01-01' }), 'BAD_REQUEST');
      expect(error.message).toContain('To must be the same day as From or later.');
    }
    expect((await caller.usage.list({ from: '2026-12-10', to: '2026-12-10' })).items).toBeDefined();
    await expectTrpcError(caller.usage.list({ cursor: 'Zm9v' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    // Days and positions the database cannot hold are refused before it sees them (they were 500s).
    for (const day of ['0000-01-01', '1969-12-31', '9999-12-31']) {
      await expectTrpcError(caller.usage.list({ from: day }), 'BAD_REQUEST');
      await expectTrpcError(caller.usage.list({ to: day }), 'BAD_REQUEST');
    }
    const forged = (position: string) => Buffer.from(position, 'utf8').toString('base64url');
    for (const cursor of [
      forged('2026-01-01T00:00:00.000Z|notauuid'),
      forged('-271821-04-20T00:00:00.000Z|00000000-0000-0000-0000-000000000000'),
    ]) {
      await expectTrpcError(caller.usage.list({ cursor }), 'UNPROCESSABLE_CONTENT', 'validation_error');
      await expectTrpcError(caller.jobs.list({ cursor }), 'UNPROCESSABLE_CONTENT', 'validation_error');
      await expectTrpcError(caller.uploads.list({ cursor }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    }
    expect((await caller.usage.list({ from: '1970-01-01', to: '9999-12-30' })).items).toBeDefined();
  });

  it("exports CSV through the export's procedure: a header, one line per event, and defused formula cells", async () => {
    const { caller } = await operatorCaller();
    const key = await keyWithPackage(caller);
    await usage(key.id, 'succeeded', 7);
    await getPrisma().usageEvent.updateMany({
      where: { apiKeyId: key.id },
      data: { errorCode: '=HYPERLINK("x")', enginesTried: ['openai:gpt-4o', 'local'] },
    });
    const lines: string[] = [];
    for await (const line of await caller.usage.csv({ key: key.id })) lines.push(line);
    expect(lines[0]).toBe(
      'id,created_at,api_key_id,key_prefix,operation,engine,outcome,units,error_code,request_id,job_id,duration_ms,' +
        'input_tokens,output_tokens,cached_input_tokens,characters,audio_seconds,images,image_size,video_seconds,provider_cost,unpriced,usage_estimated,' +
        'revenue,margin,key_label,surface,engines_tried\r\n',
    );
    expect(lines).toHaveLength(2);
    // Every engine tried, in order (outside audit: the docs said so, the export had no such column).
    expect(lines[1]).toMatch(/,openai:gpt-4o local\r\n$/);
    expect(lines[1]).toContain(`,${key.id},`);
    expect(lines[1]).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('reads at most two exports at once on an instance: a third is 429 until one ends; one never read holds nothing (outside audit: a batch of ten pinned a core)', async () => {
    const { caller } = await operatorCaller();
    const key = await keyWithPackage(caller);
    await usage(key.id, 'succeeded', 3);
    const unread = await caller.usage.csv({ key: key.id }); // as tRPC drops the lines of a request that cannot stream them
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => caller.usage.csv({ key: key.id })));
    expect((await first!.next()).done).toBe(false);
    expect((await second!.next()).done).toBe(false);
    const refused = await expectTrpcError(third!.next(), 'TOO_MANY_REQUESTS');
    expect(refused.message).toBe('2 usage exports are running on this instance; try again when one has finished.');
    const read: string[] = [];
    for await (const line of first!) read.push(line);
    expect(read).toHaveLength(1); // the event line (the header was read above)
    await second!.return(undefined); // its reader went away
    const again = [await caller.usage.csv({ key: key.id }), await caller.usage.csv({ key: key.id })];
    for (const lines of again) expect((await lines.next()).done).toBe(false);
    for (const lines of [...again, unread]) await lines.return(undefined);
  });
});

describe('jobs and uploads', () => {
  it('list with status filters, get details, and NOT_FOUND for unknown ids', async () => {
    const { caller } = await operatorCaller();
    const key = await keyWithPackage(caller);
    const jobId = `job_${randomUUID().replaceAll('-', '')}`;
    await getPrisma().job.create({
      data: {
        id: jobId,
        apiKeyId: key.id,
        operation: 'videos.generate',
        status: 'failed',
        input: { prompt: 'a cat' },
        engine: 'local',
        units: 20,
        requestId: 'req_test',
        errorCode: 'provider_unavailable',
      },
    });
    const uploadId = `upl_${randomUUID().replaceAll('-', '')}`;
    await getPrisma().upload.create({
      data: {
        id: uploadId,
        apiKeyId: key.id,
        purpose: 'image_input',
        filename: 'cat.png',
        mimeType: 'image/png',
        sizeBytes: 10,
        sha256: 'a'.repeat(64),
        storageKey: `uploads/${uploadId}`,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    expect((await caller.jobs.list({ status: 'failed', apiKeyId: key.id })).items.map((job) => job.id)).toEqual([jobId]);
    expect((await caller.jobs.list({ status: 'succeeded', apiKeyId: key.id })).items).toEqual([]);
    expect(await caller.jobs.get({ id: jobId })).toEqual(
      expect.objectContaining({ status: 'failed', input: { prompt: 'a cat', input_upload_id: null }, key_prefix: key.prefix }),
    );
    // The operator sees the upload the caller named, never where its bytes are stored.
    const withUpload = `${jobId}_u`;
    await getPrisma().job.create({
      data: {
        id: withUpload,
        apiKeyId: key.id,
        operation: 'videos.generate',
        status: 'submitted',
        engine: 'local',
        units: 20,
        requestId: 'req_test',
        input: {
          prompt: 'a dog',
          inputUpload: {
            uploadId: 'upl_AAAAAAAAAAAAAAAAAAAAAAAA',
            storageKey: `uploads/${key.id}/upl_AAAAAAAAAAAAAAAAAAAAAAAA.0a1b2c3d4e5f.verified`,
            mimeType: 'image/png',
          },
        },
      },
    });
    expect((await caller.jobs.get({ id: withUpload })).input).toEqual({ prompt: 'a dog', input_upload_id: 'upl_AAAAAAAAAAAAAAAAAAAAAAAA' });
    expect((await caller.uploads.list({ status: 'pending', apiKeyId: key.id })).items.map((upload) => upload.id)).toEqual([uploadId]);
    expect(await caller.uploads.get({ id: uploadId })).toMatchObject({ filename: 'cat.png', status: 'pending' });
    await expectTrpcError(caller.jobs.get({ id: 'job_missing' }), 'NOT_FOUND', 'not_found');
    await expectTrpcError(caller.uploads.get({ id: 'upl_missing' }), 'NOT_FOUND', 'not_found');
    // @ts-expect-error checked at run time
    await expectTrpcError(caller.jobs.list({ status: 'done' }), 'BAD_REQUEST');
    // @ts-expect-error checked at run time
    await expectTrpcError(caller.uploads.list({ status: 'done' }), 'BAD_REQUEST');
  });
});

describe('audit log', () => {
  it('lists newest first with filters and paging; actions lists what happened', async () => {
    const { caller, operator } = await operatorCaller();
    const key = await keyWithPackage(caller);
    await caller.keys.topUp({ id: key.id, units: 1 });
    await caller.keys.topUp({ id: key.id, units: 2 });
    const mine = await caller.audit.list({ actor: operator.email, limit: 2 });
    expect(mine.items.map((item) => item.action)).toEqual(['key.topup', 'key.topup']);
    expect(mine.items[0]).toMatchObject({ actor_type: 'operator', actor_id: operator.id, after: { added: 2 } });
    const rest = await caller.audit.list({ actor: operator.email, limit: 2, cursor: mine.nextCursor! });
    expect(rest.items.map((item) => item.action)).toEqual(['key.create']);
    expect(await caller.audit.actions()).toEqual(expect.arrayContaining(['key.create', 'key.topup', 'operator.create']));
    // Refused as every other list refuses a cursor it never returned (tRPC audit: this one said 400).
    await expectTrpcError(caller.audit.list({ cursor: 'abc' }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    await expectTrpcError(caller.audit.list({ cursor: '9999999999999999999' }), 'UNPROCESSABLE_CONTENT', 'validation_error'); // past bigint: refused, not a 500
    expect((await caller.audit.list({ cursor: '9223372036854775807', actor: operator.email })).items.length).toBeGreaterThan(0);
    expect((await caller.audit.list({ actor: '%' })).items).toEqual([]); // a wildcard is a plain character
  });

  it('is append-only: the database refuses to change an entry', async () => {
    await expect(getPrisma().auditLog.updateMany({ data: { action: 'tampered' } })).rejects.toThrow();
  });
});

describe('usage: key text, request id, totals and paging back', () => {
  it('filters by prefix or label, totals everything filtered and pages back', async () => {
    const { caller, slug } = await operatorWithPackage('pk-usage-text', 1000);
    const marker = randomUUID().slice(0, 8);
    const key = await caller.keys.issue({ packageSlug: slug, label: `Customer ${marker}` });
    for (let i = 0; i < 5; i++) await usage(key.id, i === 1 ? 'failed' : 'succeeded', i === 1 ? 0 : i + 1);
    const byLabel = await caller.usage.list({ key: marker.toUpperCase(), limit: 2 });
    expect(byLabel.items.map((event) => event.units)).toEqual([5, 4]);
    expect(byLabel.prevCursor).toBeNull();
    const second = await caller.usage.list({ key: marker, limit: 2, cursor: byLabel.nextCursor! });
    expect(second.items.map((event) => event.units)).toEqual([3, 0]);
    const back = await caller.usage.list({ key: marker, limit: 2, cursor: second.prevCursor! });
    expect(back.items.map((event) => event.units)).toEqual([5, 4]);
    expect(back.prevCursor).toBeNull();
    expect(back.nextCursor).not.toBeNull();
    const byPrefix = await caller.usage.list({ key: key.prefix, operation: 'text.generate' });
    expect(byPrefix.items.every((event) => event.key_prefix === key.prefix)).toBe(true);
    expect(await caller.usage.totals({ key: marker })).toEqual({ requests: 5, succeeded: 4, failed: 1, units: 13, matching_keys: 1 });
    expect(await caller.usage.totals({ key: marker, outcome: 'failed' })).toMatchObject({ requests: 1, units: 0 });
    expect((await caller.usage.totals({ key: `nobody-${marker}` })).matching_keys).toBe(0);
    const one = byLabel.items[0]!;
    expect((await caller.usage.list({ request: one.request_id })).items.map((event) => event.id)).toEqual([one.id]);
  });

  it('reads URL filters one by one: what cannot apply is named, the rest apply', async () => {
    const { parseUsageFilters } = await import('@/server/contract/dashboard/usage-filters');
    const params: Record<string, string> = {
      key: 'wgs_live_ab',
      operation: 'text.delete',
      outcome: 'failed',
      from: '2026-13-01',
      to: '2026-01-02',
    };
    const { filters, invalid } = parseUsageFilters((name) => params[name]);
    expect(filters).toEqual({ key: 'wgs_live_ab', outcome: 'failed', to: '2026-01-02' });
    expect(Object.keys(invalid).sort()).toEqual(['from', 'operation']);
    expect(invalid.operation).toMatch(/^Operation must be one of text.generate/);
    const reversed = parseUsageFilters((name) => ({ from: '2026-02-01', to: '2026-01-01' })[name]);
    expect(reversed.filters).toEqual({ from: '2026-02-01' });
    expect(reversed.invalid.to).toBe('To must be the same day as From or later.');
  });
});
