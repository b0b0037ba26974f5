import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as uploadUrlRoute from '@/app/uploads/[uploadId]/route';
import * as fileUrlRoute from '@/app/files/[...key]/route';
import { uploadSchema } from '@/server/contract/jobs-and-uploads';
import { getPrisma, getSqlDb } from '@/server/db/client';
import { clearClosedUploadKeys, expireStaleUploads, LATE_PUT_GRACE_SECONDS } from '@/server/domain/uploads/expire-uploads';
import { loadUploadBytes, resolveInputUpload } from '@/server/domain/uploads/resolve-input-upload';
import { authenticateKey } from '@/server/domain/keys/authenticate-key';
import { signUploadUrl } from '@/server/storage/upload-urls';
import { getConfig } from '@/server/config';
import { getObjectStore } from '@/server/storage/get-object-store';
import { api, BASE, call, createTestKey, expectEnvelope, type TestKey } from '../helpers/api';
import { complete, createUpload, putBytes, samplePng, sampleWav, sha256Hex } from './support/storage/uploads';

const IMAGE = { purpose: 'image_input', mime_type: 'image/png', filename: 'in.png' } as const;
const UPLOAD_OPS = {
  'images.generate': { engine: 'local', units: 5, input_uploads: true },
  'audio.transcribe': { engine: 'local', units: 4 },
};

let owner: TestKey;
let png: Buffer;

const storedPath = (storageKey: string) => join(getConfig().dataDir, 'storage', storageKey);

beforeAll(async () => {
  owner = await createTestKey({ operations: UPLOAD_OPS, maxUploadBytes: 1_000_000 });
  png = await samplePng();
});

describe('POST /v1/uploads', () => {
  it('201 with the Upload fields and a signed PUT URL, replayed for the same Idempotency-Key', async () => {
    const before = Date.now();
    const created = await createUpload(owner.key, IMAGE, png);
    expect(created.status, created.text).toBe(201);
    const body = uploadSchema.parse(created.json);
    expect(body.upload_id).toMatch(/^upl_[A-Za-z0-9_-]{24}$/);
    expect(body).toMatchObject({
      object: 'upload',
      status: 'pending',
      purpose: 'image_input',
      filename: 'in.png',
      mime_type: 'image/png',
      size_bytes: png.length,
      sha256: sha256Hex(png),
      verified_at: null,
      upload_method: 'PUT',
      upload_headers: { 'Content-Type': 'image/png' },
    });
    expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(3600_000); // UPLOAD_TTL_SECONDS exactly
    expect(body.upload_url).toMatch(new RegExp(`^${BASE}/uploads/${body.upload_id}\\?exp=\\d+&sig=`));
    expect(created.headers.get('cache-control')).toBe('no-store');

    const idem = 'upload-idem-0001';
    const first = await call(
      api,
      '/v1/uploads',
      { ...IMAGE, size_bytes: 10, sha256: sha256Hex(png) },
      { key: owner.key, idempotencyKey: idem },
    );
    const again = await call(
      api,
      '/v1/uploads',
      { ...IMAGE, size_bytes: 10, sha256: sha256Hex(png) },
      { key: owner.key, idempotencyKey: idem },
    );
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.upload_id).toBe(first.json.upload_id);
  });

  it('403 forbidden for a key whose package takes no uploads', async () => {
    const textOnly = await createTestKey();
    const noInput = await createTestKey({ operations: { 'images.generate': { engine: 'local', units: 1, input_uploads: false } } });
    expectEnvelope(await createUpload(textOnly.key, IMAGE, png), 403, 'forbidden');
    expectEnvelope(await createUpload(noInput.key, IMAGE, png), 403, 'forbidden');
  });

  it('422 not_allowed_by_package for a purpose no operation of the package takes', async () => {
    const transcribeOnly = await createTestKey({ operations: { 'audio.transcribe': { engine: 'local', units: 1 } } });
    const wav = await sampleWav();
    expect(
      (await createUpload(transcribeOnly.key, { purpose: 'audio_input', mime_type: 'audio/wav', filename: 'a.wav' }, wav)).status,
    ).toBe(201);
    expect(
      (await createUpload(transcribeOnly.key, { purpose: 'video_input', mime_type: 'video/mp4', filename: 'v.mp4' }, wav)).status,
    ).toBe(201);
    const image = await createUpload(transcribeOnly.key, IMAGE, png);
    expectEnvelope(image, 422, 'validation_error');
    expect(image.json.error.details.issues).toEqual([expect.objectContaining({ path: 'purpose', code: 'not_allowed_by_package' })]);

    const imagesOnly = await createTestKey({ operations: { 'images.generate': { engine: 'local', units: 1, input_uploads: true } } });
    expect((await createUpload(imagesOnly.key, IMAGE, png)).status).toBe(201);
    for (const declared of [
      { purpose: 'audio_input', mime_type: 'audio/wav' },
      { purpose: 'video_input', mime_type: 'video/mp4' },
    ] as const) {
      const refused = await createUpload(imagesOnly.key, declared, png);
      expectEnvelope(refused, 422, 'validation_error');
      expect(refused.json.error.details.issues[0]).toMatchObject({ path: 'purpose', code: 'not_allowed_by_package' });
    }
    const videosWithInput = await createTestKey({ operations: { 'videos.generate': { engine: 'local', units: 1, input_uploads: true } } });
    expect((await createUpload(videosWithInput.key, { purpose: 'video_input', mime_type: 'video/mp4' }, png)).status).toBe(201);
    expectEnvelope(
      await createUpload(videosWithInput.key, { purpose: 'audio_input', mime_type: 'audio/wav' }, png),
      422,
      'validation_error',
    );
  });

  it('422 when the purpose does not fit the mime type', async () => {
    for (const [purpose, mime] of [
      ['image_input', 'audio/wav'],
      ['audio_input', 'video/mp4'],
      ['video_input', 'image/png'],
    ]) {
      const result = await createUpload(owner.key, { purpose: purpose as 'image_input', mime_type: mime! }, png);
      expectEnvelope(result, 422, 'validation_error');
      expect(result.json.error.details.issues[0]).toMatchObject({ path: 'mime_type', code: 'mime_type_mismatch' });
    }
  });

  it('413 above the package upload limit, 422 outside the schema limits', async () => {
    const tooBig = await createUpload(owner.key, IMAGE, png, { size_bytes: 1_000_001 });
    expectEnvelope(tooBig, 413, 'payload_too_large');
    expect((await createUpload(owner.key, IMAGE, png, { size_bytes: 1_000_000 })).status).toBe(201);
    for (const size of [0, -1, 104_857_601, 1.5, 2 ** 53 + 2, 1e300]) {
      const result = await createUpload(owner.key, IMAGE, png, { size_bytes: size });
      expectEnvelope(result, 422, 'validation_error');
      // One issue, about the interface's bound (not also one about JavaScript's safe integers).
      expect(result.json.error.details.issues, result.text).toHaveLength(1);
      expect(result.json.error.details.issues[0].path).toBe('size_bytes');
    }
    // A missing field is `required` whatever its type (zod calls a missing enum invalid_value).
    const missing = await call(api, '/v1/uploads', { filename: 'a.png' }, { key: owner.key });
    expectEnvelope(missing, 422, 'validation_error');
    expect(missing.json.error.details.issues.map((i: { path: string; code: string }) => `${i.path}:${i.code}`).sort()).toEqual([
      'mime_type:required',
      'purpose:required',
      'sha256:required',
      'size_bytes:required',
    ]);
    expectEnvelope(await createUpload(owner.key, IMAGE, png, { mime_type: 'image/gif' }), 422, 'validation_error');
    expectEnvelope(await createUpload(owner.key, IMAGE, png, { sha256: 'ABC' }), 422, 'validation_error');
    expectEnvelope(await createUpload(owner.key, IMAGE, png, { extra: 1 }), 422, 'validation_error');
    expectEnvelope(await createUpload(owner.key, IMAGE, png, { filename: 'x'.repeat(181) }), 422, 'validation_error');
  });

  it('405 for other methods', async () => {
    const result = await call(api, '/v1/uploads', undefined, { key: owner.key });
    expectEnvelope(result, 405, 'method_not_allowed');
    expect(result.headers.get('allow')).toBe('POST');
  });

  it('405 in the envelope for other methods on upload and output URLs', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'PATCH'] as const) {
      const result = await call(uploadUrlRoute[method], '/uploads/upl_AAAAAAAAAAAAAAAAAAAAAAAA?exp=1&sig=x', undefined, { method });
      expectEnvelope(result, 405, 'method_not_allowed');
      expect(result.headers.get('allow')).toBe('PUT');
    }
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const result = await call(fileUrlRoute[method], '/files/outputs/x.png?exp=1&sig=x', undefined, { method });
      expectEnvelope(result, 405, 'method_not_allowed');
      expect(result.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('direct PUT and complete', () => {
  it('PUT without an API key stores the bytes; complete verifies; completing twice returns it again', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const put = await putBytes(created.json.upload_url, png, 'image/png');
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ upload_id: created.json.upload_id, received_bytes: png.length, sha256: sha256Hex(png) });
    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id: created.json.upload_id } });
    expect(row).toMatchObject({ receivedBytes: png.length, receivedSha256: sha256Hex(png), status: 'pending' });

    const done = await complete(owner.key, created.json.upload_id, sha256Hex(png));
    expect(done.status, done.text).toBe(200);
    const view = uploadSchema.parse(done.json);
    expect(view.status).toBe('verified');
    expect(view.verified_at).not.toBeNull();
    expect(done.json.upload_url).toBeUndefined();
    expect(done.json.upload_headers).toBeUndefined();

    const twice = await complete(owner.key, created.json.upload_id, sha256Hex(png));
    expect(twice.status).toBe(200);
    expect(twice.json).toEqual(done.json);
    // Completing again still checks the digest the request asserts.
    const wrongDigest = await complete(owner.key, created.json.upload_id, 'b'.repeat(64));
    expectEnvelope(wrongDigest, 422, 'validation_error');
    expect(wrongDigest.json.error.details.issues[0]).toMatchObject({ path: 'sha256', code: 'sha256_mismatch' });

    // A verified upload's bytes cannot be replaced through its URL.
    expectEnvelope(await putBytes(created.json.upload_url, png), 404, 'not_found');
  });

  it('a PUT still streaming when complete verifies cannot replace the verified bytes', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const id = created.json.upload_id;
    expect((await putBytes(created.json.upload_url, png)).status).toBe(200);
    // A second PUT of other bytes of the same size starts, and stalls after its first chunk.
    const other = Buffer.from(png);
    other[other.length - 1]! ^= 0xff;
    let finish!: () => void;
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(other.subarray(0, 16)));
        finish = () => {
          controller.enqueue(new Uint8Array(other.subarray(16)));
          controller.close();
        };
      },
    });
    const latePut = putBytes(created.json.upload_url, stalled);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const done = await complete(owner.key, id, sha256Hex(png));
    expect(done.status, done.text).toBe(200);
    finish();
    expectEnvelope(await latePut, 404, 'not_found');

    const ownerKey = await authenticateKey(getSqlDb(), `Bearer ${owner.key}`);
    const input = await resolveInputUpload(getPrisma(), ownerKey, id, ['image_input']);
    expect(sha256Hex(await loadUploadBytes(input.storageKey))).toBe(sha256Hex(png));
    // The late bytes were not kept anywhere.
    expect(existsSync(storedPath(`uploads/${id}`))).toBe(false);
  });

  it('completes racing each other all answer verified, and the verified bytes survive them', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const id = created.json.upload_id;
    await putBytes(created.json.upload_url, png);
    const results = await Promise.all(Array.from({ length: 6 }, () => complete(owner.key, id, sha256Hex(png))));
    for (const result of results) {
      expect(result.status, result.text).toBe(200);
      expect(result.json.status).toBe('verified');
    }
    const ownerKey = await authenticateKey(getSqlDb(), `Bearer ${owner.key}`);
    const input = await resolveInputUpload(getPrisma(), ownerKey, id, ['image_input']);
    expect(sha256Hex(await loadUploadBytes(input.storageKey))).toBe(sha256Hex(png));
  });

  it('a PUT larger than size_bytes is refused with 413 and stores nothing', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const bigger = Buffer.concat([png, Buffer.from('extra')]);
    expectEnvelope(await putBytes(created.json.upload_url, bigger), 413, 'payload_too_large');
    // Streamed without a Content-Length: refused once the count passes the declared size.
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(bigger.subarray(0, 10)));
        controller.enqueue(new Uint8Array(bigger.subarray(10)));
        controller.close();
      },
    });
    expectEnvelope(await putBytes(created.json.upload_url, stream), 413, 'payload_too_large');
    expect(existsSync(storedPath(`uploads/${created.json.upload_id}`))).toBe(false);
    const done = await complete(owner.key, created.json.upload_id, sha256Hex(png));
    expectEnvelope(done, 422, 'validation_error');
    expect(done.json.error.details.issues[0].code).toBe('not_uploaded');
  });

  it('complete refuses a wrong SHA-256, size or content with 422, stays pending, and a retry succeeds', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const id = created.json.upload_id;
    const issue = async (sha = sha256Hex(png)) => {
      const result = await complete(owner.key, id, sha);
      expectEnvelope(result, 422, 'validation_error');
      expect((await getPrisma().upload.findUniqueOrThrow({ where: { id } })).status).toBe('pending');
      return result.json.error.details.issues[0].code;
    };
    expect(await issue()).toBe('not_uploaded');
    expect(await issue('0'.repeat(64))).toBe('sha256_mismatch');

    await putBytes(created.json.upload_url, png.subarray(0, png.length - 3));
    expect(await issue()).toBe('size_mismatch');

    const corrupted = Buffer.from(png);
    corrupted[corrupted.length - 1]! ^= 0xff;
    await putBytes(created.json.upload_url, corrupted);
    expect(await issue()).toBe('sha256_mismatch');

    await putBytes(created.json.upload_url, png);
    const done = await complete(owner.key, id, sha256Hex(png));
    expect(done.status, done.text).toBe(200);
    expect(done.json.status).toBe('verified');
  });

  it('complete refuses bytes whose magic bytes are not the declared mime type', async () => {
    const wav = await sampleWav('Short.');
    const asPng = await createUpload(owner.key, IMAGE, wav);
    await putBytes(asPng.json.upload_url, wav);
    const result = await complete(owner.key, asPng.json.upload_id, sha256Hex(wav));
    expectEnvelope(result, 422, 'validation_error');
    expect(result.json.error.details.issues[0]).toMatchObject({ path: 'mime_type', code: 'content_mismatch' });

    const text = Buffer.from('just some text pretending to be audio');
    const asWav = await createUpload(owner.key, { purpose: 'audio_input', mime_type: 'audio/wav' }, text);
    await putBytes(asWav.json.upload_url, text);
    expect((await complete(owner.key, asWav.json.upload_id, sha256Hex(text))).json.error.details.issues[0].code).toBe('content_mismatch');

    const realWav = await createUpload(owner.key, { purpose: 'audio_input', mime_type: 'audio/x-wav' }, wav);
    await putBytes(realWav.json.upload_url, wav);
    expect((await complete(owner.key, realWav.json.upload_id, sha256Hex(wav))).status).toBe(200);
  });

  it("another key's upload is 404 on complete and as an input", async () => {
    const other = await createTestKey({ operations: UPLOAD_OPS });
    const created = await createUpload(owner.key, IMAGE, png);
    await putBytes(created.json.upload_url, png);
    expectEnvelope(await complete(other.key, created.json.upload_id, sha256Hex(png)), 404, 'not_found');
    expectEnvelope(await complete(owner.key, 'upl_doesnotexist0000000000', sha256Hex(png)), 404, 'not_found');
    expect((await complete(owner.key, created.json.upload_id, sha256Hex(png))).status).toBe(200);
    const otherKey = await authenticateKey(getSqlDb(), `Bearer ${other.key}`);
    await expect(resolveInputUpload(getPrisma(), otherKey, created.json.upload_id, ['image_input'])).rejects.toMatchObject({ status: 404 });
    const ownerKey = await authenticateKey(getSqlDb(), `Bearer ${owner.key}`);
    await expect(resolveInputUpload(getPrisma(), ownerKey, created.json.upload_id, ['audio_input'])).rejects.toMatchObject({ status: 422 });
    expect((await resolveInputUpload(getPrisma(), ownerKey, created.json.upload_id, ['image_input'])).sizeBytes).toBe(png.length);
  });

  it("the PUT URL lasts until the upload's expires_at, not the whole second before it (uploads audit)", async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const exp = Number(new URL(created.json.upload_url).searchParams.get('exp')) * 1000;
    expect(exp).toBeGreaterThanOrEqual(Date.parse(created.json.expires_at));
    expect(exp - Date.parse(created.json.expires_at)).toBeLessThan(1000);
    const halfPast = new Date(Math.floor(Date.now() / 1000) * 1000 + 1500);
    expect(Number(new URL(signUploadUrl(BASE, 'up_x', halfPast)).searchParams.get('exp')) * 1000).toBeGreaterThanOrEqual(
      halfPast.getTime(),
    );
  });

  it('a tampered, expired or foreign PUT URL is refused in the envelope', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const url = new URL(created.json.upload_url);
    const tampered = new URL(url);
    tampered.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 60));
    expectEnvelope(await putBytes(tampered.toString(), png), 404, 'not_found');
    const badSig = new URL(url);
    const sig = url.searchParams.get('sig')!;
    badSig.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1)); // always a different signature
    expectEnvelope(await putBytes(badSig.toString(), png), 404, 'not_found');
    const unsigned = new URL(url);
    unsigned.search = '';
    expectEnvelope(await putBytes(unsigned.toString(), png), 404, 'not_found');

    const expired = signUploadUrl(BASE, created.json.upload_id, new Date(Date.now() - 1000));
    const result = await putBytes(expired, png);
    expectEnvelope(result, 404, 'not_found');
    expect(result.json.error.message).toMatch(/expired/);

    // A valid signature for another upload id does not open this one.
    const second = await createUpload(owner.key, IMAGE, png);
    const swapped = new URL(second.json.upload_url);
    swapped.pathname = url.pathname;
    expectEnvelope(await putBytes(swapped.toString(), png), 404, 'not_found');
  });
});

describe('expiry', () => {
  it('complete of an expired upload is 422; expireStaleUploads marks it expired and deletes its bytes', async () => {
    const created = await createUpload(owner.key, IMAGE, png);
    const id = created.json.upload_id;
    await putBytes(created.json.upload_url, png);
    const path = storedPath(`uploads/${id}`);
    expect(existsSync(path)).toBe(true);
    const fresh = await createUpload(owner.key, IMAGE, png);
    await putBytes(fresh.json.upload_url, png);

    await getPrisma().upload.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const refused = await complete(owner.key, id, sha256Hex(png));
    expectEnvelope(refused, 422, 'validation_error');
    expect(refused.json.error.details.issues[0].code).toBe('upload_expired');
    expectEnvelope(await putBytes(created.json.upload_url, png), 404, 'not_found');

    const [a, b] = await Promise.all([expireStaleUploads(getSqlDb()), expireStaleUploads(getSqlDb())]);
    expect(a + b).toBeGreaterThanOrEqual(1);
    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id } });
    expect(row.status).toBe('expired');
    expect(existsSync(path)).toBe(false);
    expect((await getPrisma().upload.findUniqueOrThrow({ where: { id: fresh.json.upload_id } })).status).toBe('pending');
    expect(existsSync(storedPath(`uploads/${fresh.json.upload_id}`))).toBe(true);
    expect(await expireStaleUploads(getSqlDb())).toBe(0);

    const still = await complete(owner.key, id, sha256Hex(png));
    expectEnvelope(still, 422, 'validation_error');
    const ownerKey = await authenticateKey(getSqlDb(), `Bearer ${owner.key}`);
    await expect(resolveInputUpload(getPrisma(), ownerKey, id, ['image_input'])).rejects.toMatchObject({ status: 422 });
  });

  it("bytes a late PUT leaves at a settled upload's URL are deleted once the URL is closed; the verified copy stays", async () => {
    // S3 and Vercel Blob take PUTs at an upload's URL until it expires, verified or not (this
    // service's own PUT route refuses them, so the late PUT is written straight to the store).
    const store = getObjectStore();
    const verified = await createUpload(owner.key, IMAGE, png);
    await putBytes(verified.json.upload_url, png);
    expect((await complete(owner.key, verified.json.upload_id, sha256Hex(png))).status).toBe(200);
    const expired = await createUpload(owner.key, IMAGE, png);
    const pending = await createUpload(owner.key, IMAGE, png);
    const recent = await createUpload(owner.key, IMAGE, png);
    await putBytes(recent.json.upload_url, png);
    expect((await complete(owner.key, recent.json.upload_id, sha256Hex(png))).status).toBe(200);
    const uploadKey = (id: string) => `uploads/${id}`;
    const ids = [verified, expired, pending, recent].map((created) => created.json.upload_id as string);
    for (const id of ids) await store.put(uploadKey(id), Buffer.from('late bytes'), 'image/png');

    const closed = new Date(Date.now() - (LATE_PUT_GRACE_SECONDS + 60) * 1000);
    await getPrisma().upload.updateMany({ where: { id: { in: ids.slice(0, 3) } }, data: { expiresAt: closed } });
    await getPrisma().upload.update({ where: { id: expired.json.upload_id }, data: { status: 'expired' } });
    // Expired less than the grace ago: a PUT that started before the expiry may still be arriving.
    await getPrisma().upload.update({ where: { id: recent.json.upload_id }, data: { expiresAt: new Date(Date.now() - 60_000) } });

    const [a, b] = await Promise.all([clearClosedUploadKeys(getSqlDb()), clearClosedUploadKeys(getSqlDb())]);
    expect(a + b).toBeGreaterThanOrEqual(2);
    expect(existsSync(storedPath(uploadKey(verified.json.upload_id)))).toBe(false);
    expect(existsSync(storedPath(uploadKey(expired.json.upload_id)))).toBe(false);
    // Pending is the expiry sweep's business; the recent one's URL is not closed yet.
    expect(existsSync(storedPath(uploadKey(pending.json.upload_id)))).toBe(true);
    expect(existsSync(storedPath(uploadKey(recent.json.upload_id)))).toBe(true);

    const row = await getPrisma().upload.findUniqueOrThrow({ where: { id: verified.json.upload_id } });
    expect(row.uploadKeyClearedAt).not.toBeNull();
    expect(row.storageKey).not.toBe(uploadKey(verified.json.upload_id));
    const ownerKey = await authenticateKey(getSqlDb(), `Bearer ${owner.key}`);
    const input = await resolveInputUpload(getPrisma(), ownerKey, verified.json.upload_id, ['image_input']);
    expect(sha256Hex(await loadUploadBytes(input.storageKey))).toBe(sha256Hex(png));

    // Each upload is swept once: a second late PUT there now (impossible, the URL is closed) stays.
    await store.put(uploadKey(verified.json.upload_id), Buffer.from('again'), 'image/png');
    await clearClosedUploadKeys(getSqlDb());
    expect(existsSync(storedPath(uploadKey(verified.json.upload_id)))).toBe(true);
    expect((await getPrisma().upload.findUniqueOrThrow({ where: { id: verified.json.upload_id } })).uploadKeyClearedAt).toEqual(
      row.uploadKeyClearedAt,
    );
    await store.delete(uploadKey(verified.json.upload_id));
  });
});
