import { createHash } from 'node:crypto';
import { synthesizeSpeech } from '../../../server/providers/local/speech';
import { parseJson } from '../checker/answers';
import { UNITS } from '../stack/packages';
import { noteInstances, paidHeaders, pickInstance, postStep, sendUntilAnswered } from './attempts';
import { newCall, type DriverContext } from './context';
import { send } from './http';
import type { CallPlan } from './plan';

// Transcription with an upload, as a client does it: create the upload, send its bytes to the
// signed URL (the first time, maybe hanging up half-way and sending them again), complete it, then
// transcribe it. Only the transcription is a paid call; the upload's steps are retried the same way.

let audio: Promise<Buffer> | undefined;
const speechSample = () => (audio ??= synthesizeSpeech({ text: 'The harbour lights are on.', format: 'wav' }).then((s) => s.bytes));

interface Upload {
  id: string;
  url: string;
  headers: Record<string, string>;
}

async function createUpload(ctx: DriverContext, plan: CallPlan, secret: string, bytes: Buffer): Promise<Upload | undefined> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const body = { purpose: 'audio_input', filename: 'chaos.wav', mime_type: 'audio/wav', size_bytes: bytes.length, sha256 };
  const answer = await postStep(ctx, plan.jitter, {
    secret,
    path: '/v1/uploads',
    idempotencyKey: `${plan.id}-upload`,
    body,
    instance: plan.instance,
  });
  const created = parseJson(answer?.body);
  if (answer?.status !== 201 || !created) return undefined;
  return { id: String(created.upload_id), url: String(created.upload_url), headers: created.upload_headers as Record<string, string> };
}

/** Sends the bytes to the upload URL, on an instance that is up (they share the object store). */
async function putBytes(ctx: DriverContext, plan: CallPlan, upload: Upload, bytes: Buffer): Promise<boolean> {
  const path = new URL(upload.url);
  for (let n = 0; n < 8; n++) {
    const instance = await pickInstance(ctx, plan.jitter);
    const hangUp = n === 0 && plan.fault === 'client-gone-mid-upload' ? ('mid-body' as const) : undefined;
    const url = `${instance.base}${path.pathname}${path.search}`;
    const answer = await send(
      { method: 'PUT', url, headers: upload.headers, body: bytes, timeoutMs: 20_000, hangUp },
      instance.name,
      ctx.clock,
    );
    if (hangUp && answer.failure?.startsWith('client hung up')) ctx.faults.note('client-gone-mid-upload', plan.id);
    if (answer.status !== undefined && answer.status < 300) return true;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return false;
}

export async function runTranscription(ctx: DriverContext, plan: CallPlan): Promise<void> {
  const key = ctx.keys.get(plan.key.name)!;
  const call = newCall(ctx, plan, { operation: 'audio.transcribe', units: UNITS.transcribe, provider: false });
  const bytes = await speechSample();
  const upload = await createUpload(ctx, plan, key.secret, bytes);
  if (!upload || !(await putBytes(ctx, plan, upload, bytes))) return;
  if (plan.fault === 'client-gone-mid-upload') call.faults.push(plan.fault);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const completed = await postStep(ctx, plan.jitter, {
    secret: key.secret,
    path: `/v1/uploads/${upload.id}/complete`,
    idempotencyKey: `${plan.id}-complete`,
    body: { sha256 },
    instance: plan.instance,
  });
  if (completed?.status !== 200) return;
  const body = Buffer.from(JSON.stringify({ input_upload_id: upload.id, timestamps: 'segment', language: 'en' }));
  const fault = plan.fault === 'client-gone-before-answer' ? plan.fault : undefined;
  await sendUntilAnswered(ctx, {
    call,
    random: plan.jitter,
    fault,
    instance: plan.instance,
    build: (base) => ({ method: 'POST', url: `${base}/v1/audio/transcribe`, headers: paidHeaders(key.secret, plan.id), body }),
  });
  noteInstances(ctx, call);
}
