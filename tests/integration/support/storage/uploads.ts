import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { expect } from 'vitest';
import { PUT as uploadPut } from '@/app/uploads/[uploadId]/route';
import { synthesizeSpeech } from '@/server/providers/local/speech';
import { api, BASE, call, type CallResult } from '../../../helpers/api';

// Upload flow helpers shared by the upload and media route tests (local store, in-process).

export const sha256Hex = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export async function samplePng(): Promise<Buffer> {
  return sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
}

export async function sampleWav(text = 'Hello there. This is a short test. Goodbye now.'): Promise<Buffer> {
  return (await synthesizeSpeech({ text, format: 'wav' })).bytes;
}

export interface UploadSpec {
  purpose: 'image_input' | 'audio_input' | 'video_input';
  mime_type: string;
  filename?: string;
}

export function createUpload(key: string, spec: UploadSpec, bytes: Buffer, override: Record<string, unknown> = {}): Promise<CallResult> {
  return call(
    api,
    '/v1/uploads',
    {
      purpose: spec.purpose,
      filename: spec.filename ?? 'input.bin',
      mime_type: spec.mime_type,
      size_bytes: bytes.length,
      sha256: sha256Hex(bytes),
      ...override,
    },
    { key },
  );
}

/** PUT to an upload_url (the local store's signed route), without any API key. */
export function putBytes(
  uploadUrl: string,
  bytes: Buffer | ReadableStream<Uint8Array>,
  contentType = 'application/octet-stream',
): Promise<CallResult> {
  const url = new URL(uploadUrl);
  const uploadId = decodeURIComponent(url.pathname.split('/').pop()!);
  const put = (request: Request) => uploadPut(request, { params: Promise.resolve({ uploadId }) });
  return call(put, `${url.pathname}${url.search}`, undefined, {
    method: 'PUT',
    rawBody: bytes as BodyInit,
    headers: { 'Content-Type': contentType },
  });
}

export function complete(key: string, uploadId: string, sha256: string): Promise<CallResult> {
  return call(api, `/v1/uploads/${uploadId}/complete`, { sha256 }, { key });
}

/** Create, PUT and complete: a verified upload's id. */
export async function verifiedUpload(key: string, spec: UploadSpec, bytes: Buffer): Promise<string> {
  const created = await createUpload(key, spec, bytes);
  expect(created.status, created.text).toBe(201);
  expect(created.json.upload_url.startsWith(`${BASE}/uploads/`)).toBe(true);
  const put = await putBytes(created.json.upload_url, bytes, spec.mime_type);
  expect(put.status, put.text).toBe(200);
  const done = await complete(key, created.json.upload_id, sha256Hex(bytes));
  expect(done.status, done.text).toBe(200);
  return created.json.upload_id;
}
