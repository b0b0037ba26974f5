import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import sharp from 'sharp';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as filesGet } from '@/app/files/[...key]/route';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { resetConfigForTests, readConfig } from '@/server/config';
import { deleteExpiredOutputs, deleteExpiredUploads } from '@/server/domain/retention/retention';
import { clearClosedUploadKeys, expireStaleUploads, LATE_PUT_GRACE_SECONDS } from '@/server/domain/uploads/expire-uploads';
import { getObjectStore, setObjectStoreForTests } from '@/server/storage/get-object-store';
import type { ObjectStore } from '@/server/storage/object-store';
import type { ByteRange } from '@/server/storage/byte-range';
import { verifyObjectUrl } from '@/server/storage/signed-urls';
import { S3Store } from '@/server/storage/s3-store';
import { LocalDiskStore } from '@/server/storage/local-disk-store';
import { VercelBlobStore } from '@/server/storage/vercel-blob-store';
import { api, BASE, call, createTestKey, expectEnvelope, type TestKey } from '../helpers/api';
import { startBlobStandIn, type BlobStandIn } from './support/storage/blob-stand-in';
import { complete, createUpload, samplePng, sha256Hex } from './support/storage/uploads';

const IMAGE = { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' } as const;
let key: TestKey;
let png: Buffer;

beforeAll(async () => {
  key = await createTestKey({
    operations: { 'images.generate': { engine: 'local', units: 1, input_uploads: true, output_formats: ['png'] } },
  });
  png = await samplePng();
});

afterEach(() => setObjectStoreForTests(undefined));

/** PUT to a store's direct upload URL exactly as a client would: the returned method, URL and headers. */
function directPut(created: { upload_url: string; upload_method: string; upload_headers: Record<string, string> }, bytes: Buffer) {
  return fetch(created.upload_url, { method: created.upload_method, headers: created.upload_headers, body: new Uint8Array(bytes) });
}

/** The shared behaviour every driver must have. */
async function checkStoreBasics(store: ObjectStore) {
  const key = `outputs/test/${Date.now()}-a.bin`;
  expect(await store.get(key)).toBeNull();
  await store.put(key, Buffer.from('hello store'), 'application/octet-stream');
  const got = await store.get(key);
  expect(got!.size).toBe(11);
  expect((await buffer(got!.body)).toString()).toBe('hello store');
  // One byte range (a player seeking): its bytes only, and the whole object's size.
  const ranged = async (range: ByteRange) => {
    const got = (await store.get(key, range))!;
    return { text: (await buffer(got.body)).toString(), size: got.size, range: got.range };
  };
  expect(await ranged({ first: 6, last: 8 })).toEqual({ text: 'sto', size: 11, range: { start: 6, end: 8 } });
  expect(await ranged({ first: 6 })).toEqual({ text: 'store', size: 11, range: { start: 6, end: 10 } });
  expect(await ranged({ suffix: 3 })).toEqual({ text: 'ore', size: 11, range: { start: 8, end: 10 } });
  expect(await ranged({ first: 4, last: 99 })).toEqual({ text: 'o store', size: 11, range: { start: 4, end: 10 } });
  expect(await ranged({ first: 11 })).toEqual({ text: 'hello store', size: 11, range: undefined }); // past the end: all of it
  await store.put(key, Readable.from([Buffer.from('over'), Buffer.from('written')]), 'application/octet-stream');
  expect((await buffer((await store.get(key))!.body)).toString()).toBe('overwritten');
  await store.delete(key);
  expect(await store.get(key)).toBeNull();
  await store.delete(key); // deleting a missing object is not an error
}

/**
 * The retention sweeps on this driver: a verified upload and an output past their time lose their
 * objects in one batch call of the store, and the output's URL answers 404.
 */
async function checkRetentionSweep(store: ObjectStore) {
  setObjectStoreForTests(store);
  const created = await checkUploadFlow(store);
  const sealed = (await getPrisma().upload.findUniqueOrThrow({ where: { id: created.upload_id } })).storageKey;
  const image = await call(api, '/v1/images/generate', { prompt: 'kept a day' }, { key: key.key });
  expect(image.status, image.text).toBe(200);
  const outputKey = verifyObjectUrl(new URL(image.json.output.url));
  expect(outputKey.ok).toBe(true);
  await getPool().query(`UPDATE uploads SET created_at = now() - interval '25 hours' WHERE id = $1`, [created.upload_id]);
  await getPool().query(`UPDATE stored_outputs SET created_at = now() - interval '25 hours' WHERE storage_key = $1`, [
    outputKey.ok && outputKey.key,
  ]);
  expect(await deleteExpiredUploads(getSqlDb(), 24)).toBeGreaterThanOrEqual(1);
  expect(await deleteExpiredOutputs(getSqlDb(), 24)).toBeGreaterThanOrEqual(1);
  expect(await store.get(sealed)).toBeNull();
  expect(await store.get(outputKey.ok ? outputKey.key : '')).toBeNull();
  expect((await filesGet(new Request(image.json.output.url))).status).toBe(404);
  const deleteMany = ['outputs/test/many-1.bin', 'outputs/test/many-2.bin'];
  for (const name of deleteMany) await store.put(name, Buffer.from(name), 'application/octet-stream');
  await store.deleteMany([...deleteMany, 'outputs/test/never-there.bin']);
  for (const name of deleteMany) expect(await store.get(name)).toBeNull();
}

/** create -> direct PUT (no API key) -> complete -> use as an input -> output served via /files. */
async function checkUploadFlow(store: ObjectStore) {
  setObjectStoreForTests(store);
  const created = await createUpload(key.key, IMAGE, png);
  expect(created.status, created.text).toBe(201);
  expect(created.json.upload_method).toBe('PUT');
  expect(created.json.upload_headers['Content-Type']).toBe('image/png');
  expect(created.json.upload_url).not.toContain(key.key);

  // Wrong bytes first: complete refuses, then the right bytes may be sent again.
  const wrong = Buffer.from(png);
  wrong[wrong.length - 1]! ^= 1;
  expect((await directPut(created.json, wrong)).status).toBe(200);
  const refused = await complete(key.key, created.json.upload_id, sha256Hex(png));
  expectEnvelope(refused, 422, 'validation_error');
  expect(refused.json.error.details.issues[0].code).toBe('sha256_mismatch');

  const put = await directPut(created.json, png);
  expect(put.status, await put.clone().text()).toBe(200);
  const done = await complete(key.key, created.json.upload_id, sha256Hex(png));
  expect(done.status, done.text).toBe(200);
  expect(done.json.status).toBe('verified');
  // The direct URL still takes PUTs until it expires, but the verified bytes were sealed away.
  expect((await directPut(created.json, wrong)).status).toBe(200);
  const row = await getPrisma().upload.findUniqueOrThrow({ where: { id: created.json.upload_id } });
  expect(row.storageKey).toMatch(new RegExp(`^uploads/${created.json.upload_id}\\.[0-9a-f]{12}\\.verified$`));
  expect(sha256Hex(await buffer((await store.get(row.storageKey))!.body))).toBe(sha256Hex(png));

  const result = await call(
    api,
    '/v1/images/generate',
    { prompt: 'from a stored input', input_upload_id: created.json.upload_id },
    { key: key.key },
  );
  expect(result.status, result.text).toBe(200);
  expect(result.json.output.url.startsWith(`${BASE}/files/outputs/`)).toBe(true);
  const served = await filesGet(new Request(result.json.output.url));
  expect(served.status).toBe(200);
  expect(served.headers.get('content-type')).toBe('image/png');
  expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).format).toBe('png');
  return created.json;
}

describe('local disk driver', () => {
  it('put, get (one byte range too), overwrite, delete', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wgs-local-store-'));
    try {
      await checkStoreBasics(new LocalDiskStore(root));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('an output URL serves one byte range (206) so that a player can seek; several, If-Range or past the end: the whole object', async () => {
    const image = await call(api, '/v1/images/generate', { prompt: 'ranged' }, { key: key.key });
    expect(image.status, image.text).toBe(200);
    const url = image.json.output.url as string;
    const whole = Buffer.from(await (await filesGet(new Request(url))).arrayBuffer());
    const get = (headers: Record<string, string>) => filesGet(new Request(url, { headers }));

    const part = await get({ Range: 'bytes=8-15' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 8-15/${whole.length}`);
    expect(part.headers.get('content-length')).toBe('8');
    expect(part.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await part.arrayBuffer())).toEqual(whole.subarray(8, 16));
    const tail = await get({ Range: 'bytes=-4' });
    expect([tail.status, tail.headers.get('content-range')]).toEqual([
      206,
      `bytes ${whole.length - 4}-${whole.length - 1}/${whole.length}`,
    ]);
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(whole.subarray(-4));

    const wholeAnswers: Record<string, string>[] = [
      { Range: 'bytes=0-1,4-5' },
      { Range: 'bytes=0-1', 'If-Range': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { Range: `bytes=${whole.length}-` },
      { Range: 'items=0-1' },
    ];
    for (const headers of wholeAnswers) {
      const full = await get(headers);
      expect([full.status, full.headers.get('content-length'), full.headers.get('content-range')]).toEqual([
        200,
        String(whole.length),
        null,
      ]);
      expect(Buffer.from(await full.arrayBuffer())).toEqual(whole);
    }
  });
});

describe('S3 driver against s3rver', () => {
  let server: { run(): Promise<{ port: number }>; close(): Promise<void> };
  let dir: string;
  let store: S3Store;
  let endpoint: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wgs-s3rver-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'wgs-test' }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
    store = new S3Store({
      bucket: 'wgs-test',
      region: 'us-east-1',
      endpoint,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
      forcePathStyle: true,
    });
  });
  afterAll(async () => {
    store?.destroy();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('put, get, overwrite, delete', async () => {
    await checkStoreBasics(store);
  });

  it('the retention sweeps delete uploads and outputs past their time in batches (DeleteObjects)', async () => {
    await checkRetentionSweep(store);
  });

  it('streams a body larger than one part as a multipart upload', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024 + 123, 7);
    big.write('start');
    const key = 'outputs/test/big.bin';
    await store.put(
      key,
      Readable.from(
        (function* () {
          for (let i = 0; i < big.length; i += 65536) yield big.subarray(i, i + 65536);
        })(),
      ),
      'application/octet-stream',
    );
    const got = await store.get(key);
    expect(got!.size).toBe(big.length);
    expect(sha256Hex(await buffer(got!.body))).toBe(sha256Hex(big));
  });

  it('direct upload with a presigned PUT; the signature binds type, size and object', async () => {
    const created = await checkUploadFlow(store);
    const url = new URL(created.upload_url);
    expect(url.origin).toBe(endpoint);
    // s3rver accepts any SigV4 signature (its V4 check is unimplemented), so what the signature
    // covers is checked on the URL itself: type and length are signed headers, not hoisted.
    expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';').sort()).toEqual(['content-length', 'content-type', 'host']);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const lifetime = Number(url.searchParams.get('X-Amz-Expires'));
    expect(lifetime).toBeGreaterThan(3500);
    expect(lifetime).toBeLessThanOrEqual(3600);
    expect(url.searchParams.has('Content-Type') || url.searchParams.has('content-type')).toBe(false);
    // No checksum of the (empty, at signing time) body baked into the URL: since SDK 3.729 the
    // default put one there (x-amz-checksum-crc32=AAAAAA==), and real S3, R2 and MinIO then refuse
    // the client's bytes as a checksum mismatch. s3rver ignores it, so it is checked here.
    expect([...url.searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect(url.pathname).toBe(`/wgs-test/uploads/${created.upload_id}`);
    // (s3rver has no ACLs, so privacy is not observable here: the driver sets no ACL and clients only get /files URLs.)
  });

  it('expiry deletes the bytes from S3', async () => {
    setObjectStoreForTests(store);
    const created = await createUpload(key.key, IMAGE, png);
    expect((await directPut(created.json, png)).status).toBe(200);
    await getPrisma().upload.update({ where: { id: created.json.upload_id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect(await expireStaleUploads(getSqlDb())).toBeGreaterThanOrEqual(1);
    expect(await store.get(`uploads/${created.json.upload_id}`)).toBeNull();
  });

  it('a PUT to the presigned URL after the upload was verified is deleted once the URL is closed', async () => {
    setObjectStoreForTests(store);
    const created = await createUpload(key.key, IMAGE, png);
    expect((await directPut(created.json, png)).status).toBe(200);
    expect((await complete(key.key, created.json.upload_id, sha256Hex(png))).status).toBe(200);
    const uploadKey = `uploads/${created.json.upload_id}`;
    expect(await store.get(uploadKey)).toBeNull(); // complete moved the bytes to the sealed key
    expect((await directPut(created.json, png)).status).toBe(200); // S3 still takes the URL
    expect(await store.get(uploadKey)).not.toBeNull();
    const closed = new Date(Date.now() - (LATE_PUT_GRACE_SECONDS + 1) * 1000);
    await getPrisma().upload.update({ where: { id: created.json.upload_id }, data: { expiresAt: closed } });
    expect(await clearClosedUploadKeys(getSqlDb())).toBeGreaterThanOrEqual(1);
    expect(await store.get(uploadKey)).toBeNull();
    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id: created.json.upload_id } });
    expect((await store.get(row.storageKey))?.size).toBe(png.length);
  });
});

describe('Vercel Blob driver against a local stand-in of the Blob API', () => {
  let standIn: BlobStandIn;
  let store: VercelBlobStore;
  const saved = { url: process.env.VERCEL_BLOB_API_URL, retries: process.env.VERCEL_BLOB_RETRIES };

  beforeAll(async () => {
    standIn = await startBlobStandIn();
    process.env.VERCEL_BLOB_API_URL = standIn.apiUrl;
    process.env.VERCEL_BLOB_RETRIES = '0';
    resetConfigForTests();
    store = new VercelBlobStore(standIn.token);
  });
  afterAll(async () => {
    process.env.VERCEL_BLOB_API_URL = saved.url;
    process.env.VERCEL_BLOB_RETRIES = saved.retries;
    resetConfigForTests();
    await standIn?.close();
  });

  it('put, get, overwrite, delete, all private', async () => {
    await checkStoreBasics(store);
    await store.put('outputs/test/private.txt', Buffer.from('secret'), 'text/plain');
    const meta = standIn.blobs.get('outputs/test/private.txt');
    expect(meta?.contentType).toBe('text/plain');
    // The blob's URL is not readable without the token.
    const anonymous = await fetch(`${standIn.apiUrl.replace('/api/blob', '')}/store/outputs/test/private.txt`);
    expect(anonymous.status).toBe(403);
    expect(standIn.requests.filter((r) => r.path.startsWith('/api/blob')).every((r) => r.auth === 'rw')).toBe(true);
  });

  it('direct upload with a client token bound to the pathname, type and declared size', async () => {
    const created = await checkUploadFlow(store);
    expect(created.upload_url.startsWith(`${standIn.apiUrl}/?pathname=`)).toBe(true);
    expect(created.upload_headers.authorization).toMatch(/^Bearer vercel_blob_client_/);
    expect(created.upload_headers.authorization).not.toContain(standIn.token);
    const clientPuts = standIn.requests.filter((r) => r.method === 'PUT' && r.auth === 'client');
    expect(clientPuts.length).toBe(3); // wrong bytes, right bytes, and a PUT after verification

    const tooBig = await fetch(created.upload_url, {
      method: 'PUT',
      headers: created.upload_headers,
      body: new Uint8Array(Buffer.concat([png, png])),
    });
    expect(tooBig.status).toBe(400);
    const wrongType = await fetch(created.upload_url, {
      method: 'PUT',
      headers: { ...created.upload_headers, 'x-content-type': 'image/jpeg' },
      body: new Uint8Array(png),
    });
    expect(wrongType.status).toBe(400);
    const otherPath = await fetch(created.upload_url.replace(encodeURIComponent(created.upload_id), 'someone-else'), {
      method: 'PUT',
      headers: created.upload_headers,
      body: new Uint8Array(png),
    });
    expect(otherPath.status).toBe(400);
    // The verified object is still the one that was checked.
    const sealed = (await getPrisma().upload.findUniqueOrThrow({ where: { id: created.upload_id } })).storageKey;
    expect(sealed).toMatch(/\.verified$/);
    expect(sha256Hex(standIn.blobs.get(sealed)!.bytes)).toBe(sha256Hex(png));
  });

  it('the retention sweeps delete uploads and outputs past their time in batches (one delete call per batch)', async () => {
    await checkRetentionSweep(store);
    expect(standIn.requests.some((r) => r.method === 'POST' && r.path.endsWith('/delete'))).toBe(true);
  });

  it('complete reads the object back: nothing uploaded is 422 not_uploaded', async () => {
    setObjectStoreForTests(store);
    const created = await createUpload(key.key, IMAGE, png);
    const result = await complete(key.key, created.json.upload_id, sha256Hex(png));
    expectEnvelope(result, 422, 'validation_error');
    expect(result.json.error.details.issues[0].code).toBe('not_uploaded');
  });
});

describe('configuration', () => {
  it('STORAGE_DRIVER picks the driver; missing settings are named', () => {
    const base = { NODE_ENV: 'test', DATABASE_URL: process.env.DATABASE_URL } as const;
    expect(() => readConfig({ ...base, STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET: is required when STORAGE_DRIVER=s3/);
    expect(() => readConfig({ ...base, STORAGE_DRIVER: 'vercel-blob' })).toThrow(/BLOB_READ_WRITE_TOKEN: is required/);
    expect(() => readConfig({ ...base, STORAGE_DRIVER: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'x' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        STORAGE_DRIVER: 's3',
        S3_BUCKET: 'wgs-test',
        S3_ENDPOINT: 'http://127.0.0.1:1',
        S3_FORCE_PATH_STYLE: 'true',
      });
      resetConfigForTests();
      setObjectStoreForTests(undefined);
      expect(getObjectStore().driver).toBe('s3');
      Object.assign(process.env, { STORAGE_DRIVER: 'vercel-blob', BLOB_READ_WRITE_TOKEN: 'vercel_blob_rw_abc_def' });
      resetConfigForTests();
      setObjectStoreForTests(undefined);
      expect(getObjectStore().driver).toBe('vercel-blob');
      delete process.env.STORAGE_DRIVER;
      delete process.env.BLOB_READ_WRITE_TOKEN;
      resetConfigForTests();
      setObjectStoreForTests(undefined);
      expect(getObjectStore().driver).toBe('local');
    } finally {
      for (const name of ['STORAGE_DRIVER', 'S3_BUCKET', 'S3_ENDPOINT', 'S3_FORCE_PATH_STYLE', 'BLOB_READ_WRITE_TOKEN']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
      resetConfigForTests();
      setObjectStoreForTests(undefined);
    }
  });
});
