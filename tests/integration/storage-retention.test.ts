import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GET as filesGet } from '@/app/files/[...key]/route';
import { getPool, getPrisma, getSqlDb, type SqlDb } from '@/server/db/client';
import { deleteExpiredOutputs, deleteExpiredUploads } from '@/server/domain/retention/retention';
import { expireStaleUploads } from '@/server/domain/uploads/expire-uploads';
import { getObjectStore } from '@/server/storage/get-object-store';
import { verifyObjectUrl } from '@/server/storage/signed-urls';
import { api, call, createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { complete, createUpload, samplePng, sha256Hex, verifiedUpload } from './support/storage/uploads';

// Storage expires and is capped (SECURITY.md, "Storage expires and is capped"): uploads and
// outputs past UPLOAD_RETENTION_HOURS / OUTPUT_RETENTION_HOURS lose their objects and are not
// found; what a key holds at once is capped by its package's max_stored_bytes.

const OPS = { 'images.generate': { engine: 'local', units: 3, input_uploads: true } };
const IMAGE = { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' } as const;

const storedBytes = async (id: string) => Number((await getPrisma().apiKey.findUniqueOrThrow({ where: { id } })).storedBytes);
const age = (table: 'uploads' | 'stored_outputs', column: string, value: string, hours: number) =>
  getPool().query(`UPDATE ${table} SET created_at = now() - make_interval(hours => $2) WHERE ${column} = $1`, [value, hours]);

// A second instance: its own pool on the same database.
const otherPool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
const otherInstance: SqlDb = { pool: otherPool, provisional: otherPool };
afterAll(() => otherPool.end());

describe('retention', () => {
  it('an upload past UPLOAD_RETENTION_HOURS loses its bytes; as input_upload_id and on complete it is 404, nothing charged', async () => {
    const key = await createTestKey({ operations: OPS, quota: 100 });
    const png = await samplePng();
    const id = await verifiedUpload(key.key, IMAGE, png);
    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id } });
    expect(await storedBytes(key.id)).toBe(png.length);

    await age('uploads', 'id', id, 23);
    expect(await deleteExpiredUploads(getSqlDb(), 24)).toBe(0); // not yet
    await age('uploads', 'id', id, 25);
    await deleteExpiredUploads(getSqlDb(), 24);
    expect(await getObjectStore().get(row.storageKey)).toBeNull();
    expect((await getPrisma().upload.findUniqueOrThrow({ where: { id } })).deletedAt).not.toBeNull();
    expect(await storedBytes(key.id)).toBe(0);

    const used = await call(api, '/v1/images/generate', { prompt: 'p', input_upload_id: id }, { key: key.key });
    expectEnvelope(used, 404, 'not_found');
    expectEnvelope(await complete(key.key, id, sha256Hex(png)), 404, 'not_found');
    expect(await remainingUnits(key.id)).toBe(100);
  });

  it('an output past OUTPUT_RETENTION_HOURS is deleted: its URL is 404 and it stops counting against the key', async () => {
    const key = await createTestKey({ operations: OPS });
    const image = await call(api, '/v1/images/generate', { prompt: 'a day at most' }, { key: key.key });
    expect(image.status, image.text).toBe(200);
    const verified = verifyObjectUrl(new URL(image.json.output.url));
    const storageKey = verified.ok ? verified.key : '';
    const served = await filesGet(new Request(image.json.output.url));
    const size = (await served.arrayBuffer()).byteLength;
    expect(served.status).toBe(200);
    expect(await storedBytes(key.id)).toBe(size);

    await age('stored_outputs', 'storage_key', storageKey, 25);
    await deleteExpiredOutputs(getSqlDb(), 24);
    const gone = await filesGet(new Request(image.json.output.url));
    expect(gone.status).toBe(404);
    expect(await storedBytes(key.id)).toBe(0);
    expect((await getPrisma().storedOutput.findUniqueOrThrow({ where: { storageKey } })).deletedAt).not.toBeNull();
  });

  it('two instances sweeping at once delete each object once and take each key down exactly once', async () => {
    const key = await createTestKey({ operations: OPS });
    const png = await samplePng();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await verifiedUpload(key.key, IMAGE, png));
    for (let i = 0; i < 3; i++) expect((await call(api, '/v1/images/generate', { prompt: `o${i}` }, { key: key.key })).status).toBe(200);
    await getPool().query(`UPDATE uploads SET created_at = now() - interval '2 days' WHERE api_key_id = $1`, [key.id]);
    await getPool().query(`UPDATE stored_outputs SET created_at = now() - interval '2 days' WHERE api_key_id = $1`, [key.id]);

    const [a, b, c, d] = await Promise.all([
      deleteExpiredUploads(getSqlDb(), 24),
      deleteExpiredUploads(otherInstance, 24),
      deleteExpiredOutputs(getSqlDb(), 24),
      deleteExpiredOutputs(otherInstance, 24),
    ]);
    const { rows } = await getPool().query<{ uploads: number; outputs: number }>(
      `SELECT (SELECT count(*)::int FROM uploads WHERE api_key_id = $1 AND deleted_at IS NOT NULL) AS uploads,
              (SELECT count(*)::int FROM stored_outputs WHERE api_key_id = $1 AND deleted_at IS NOT NULL) AS outputs`,
      [key.id],
    );
    expect(rows[0]).toEqual({ uploads: 6, outputs: 3 });
    expect(a + b).toBeGreaterThanOrEqual(6); // other tests' aged rows may be swept too
    expect(c + d).toBeGreaterThanOrEqual(3);
    expect(await storedBytes(key.id)).toBe(0);
    // a second run finds nothing of this key left
    await deleteExpiredUploads(otherInstance, 24);
    expect(await storedBytes(key.id)).toBe(0);
  });

  it('a pending upload that expires unverified stops counting against the key', async () => {
    const key = await createTestKey({ operations: OPS });
    const created = await createUpload(key.key, IMAGE, Buffer.alloc(500), { size_bytes: 500 });
    expect(created.status).toBe(201);
    expect(await storedBytes(key.id)).toBe(500);
    await getPool().query(`UPDATE uploads SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.json.upload_id]);
    await expireStaleUploads(getSqlDb());
    expect(await storedBytes(key.id)).toBe(0);
    await age('uploads', 'id', created.json.upload_id, 25);
    await deleteExpiredUploads(getSqlDb(), 24); // already uncounted: not taken down twice
    expect(await storedBytes(key.id)).toBe(0);
  });
});

describe('an output the store could not take', () => {
  it('is not counted against the key: the call fails uncharged and the key holds what it held', async () => {
    const key = await createTestKey({ operations: OPS, quota: 100 });
    const outputsBefore = await getPrisma().storedOutput.count({ where: { apiKeyId: key.id } });
    const put = vi.spyOn(getObjectStore(), 'put').mockRejectedValue(new Error('the store is away'));
    try {
      const failed = await call(api, '/v1/images/generate', { prompt: 'nowhere to go' }, { key: key.key });
      expectEnvelope(failed, 500, 'internal_error');
    } finally {
      put.mockRestore();
    }
    expect(await remainingUnits(key.id)).toBe(100);
    expect(await storedBytes(key.id)).toBe(0);
    expect(await getPrisma().storedOutput.count({ where: { apiKeyId: key.id } })).toBe(outputsBefore);
    // Once the store is back, the next output counts as it should.
    const image = await call(api, '/v1/images/generate', { prompt: 'somewhere' }, { key: key.key });
    expect(image.status, image.text).toBe(200);
    expect(await storedBytes(key.id)).toBeGreaterThan(0);
  });
});

describe('max_stored_bytes', () => {
  const create = (key: string, size: number) => createUpload(key, IMAGE, Buffer.alloc(1), { size_bytes: size });

  it('creating an upload past the cap is 413 payload_too_large with the limit in details; freed space is usable again', async () => {
    const key = await createTestKey({ operations: OPS, maxUploadBytes: 4_000, maxStoredBytes: 9_000 });
    const first = await create(key.key, 4_000);
    expect(first.status).toBe(201);
    expect((await create(key.key, 4_000)).status).toBe(201);
    const refused = await create(key.key, 1_001);
    expectEnvelope(refused, 413, 'payload_too_large');
    expect(refused.json.error.details).toEqual({ max_stored_bytes: 9_000, stored_bytes: 8_000 });
    expect((await create(key.key, 1_000)).status).toBe(201);
    expect(await storedBytes(key.id)).toBe(9_000);

    await age('uploads', 'id', first.json.upload_id, 25);
    await deleteExpiredUploads(getSqlDb(), 24);
    expect((await create(key.key, 4_000)).status).toBe(201);
  });

  it('defaults to 10 x max_upload_bytes', async () => {
    const key = await createTestKey({ operations: OPS, maxUploadBytes: 1_000 });
    for (let i = 0; i < 10; i++) expect((await create(key.key, 1_000)).status).toBe(201);
    const refused = await create(key.key, 1);
    expectEnvelope(refused, 413, 'payload_too_large');
    expect(refused.json.error.details.max_stored_bytes).toBe(10_000);
  });

  it('racing creates never take a key past its cap together', async () => {
    const key = await createTestKey({ operations: OPS, maxUploadBytes: 1_000, maxStoredBytes: 5_000 });
    const results = await Promise.all(Array.from({ length: 12 }, () => create(key.key, 1_000)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 413)).toHaveLength(7);
    expect(await storedBytes(key.id)).toBe(5_000);
  });
});
