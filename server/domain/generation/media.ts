import { randomUUID } from 'node:crypto';
import type { AudioSpeechRequest, AudioTranscribeRequest, ImagesGenerateRequest } from '../../contract/generation';
import type { SqlDb } from '../../db/client';
import type { PrismaClient } from '../../db/generated/client';
import type { ImageTask, SpeechTask, Transcript } from '../../providers/engine';
import { MediaDecodeError } from '../../providers/local/media-decode-error';
import { readMediaSeconds } from '../../providers/local/media-duration';
import { estimateSpeechSeconds, LOCAL_SPEECH_MAX_SECONDS } from '../../providers/local/speech';
import { engineNamesOf } from '../engine-names';
import { signObjectUrl } from '../../storage/signed-urls';
import { ApiError } from '../errors';
import { INPUT_UPLOAD_PURPOSES } from '../operations';
import { storeOutputObject } from '../retention/retention';
import type { AuthenticatedKey } from '../keys/authenticate-key';
import { loadUploadBytes, resolveInputUpload, type InputUpload } from '../uploads/resolve-input-upload';
import { callEngine, withEngineReport, type EngineCall } from './call-engine';
import type { InlineInput } from './inline-input';
import { operationSettings, PackageSettingsCheck } from './package-settings';

// images.generate, audio.speech and audio.transcribe: package settings and referenced uploads
// are checked in prepare (step 7); the engine runs after the units are held.

export interface MediaPrepared<T> {
  task: T;
  /** The package's engine, or its ordered fallbacks. */
  engine: string | readonly string[];
  units: number;
  keyId: string;
  input?: InputUpload;
}

export interface FileOutput {
  url: string;
  expires_at: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
};

/** The next step after an engine answered; when it fails, its error still carries what the call learned. */
async function afterEngine<T, R>(call: EngineCall<T>, next: (value: T) => Promise<R>): Promise<EngineCall<R>> {
  try {
    return { value: await next(call.value), engines: call.engines };
  } catch (error) {
    throw withEngineReport(error, call.engines);
  }
}

/** Stores an engine's output privately and hands back a short-lived signed URL for it. */
export async function storeOutput(db: SqlDb, keyId: string, bytes: Buffer, mimeType: string, origin: string): Promise<FileOutput> {
  // Named by a random id alone: the URL handed out carries nothing of the key (its internal id).
  const key = `outputs/${randomUUID()}.${EXTENSIONS[mimeType] ?? 'bin'}`;
  await storeOutputObject(db, { apiKeyId: keyId, storageKey: key }, bytes, mimeType);
  const signed = signObjectUrl(origin, key, mimeType);
  return { url: signed.url, expires_at: signed.expiresAt.toISOString() };
}

export async function prepareImagesGenerate(
  db: PrismaClient,
  body: ImagesGenerateRequest,
  key: AuthenticatedKey,
): Promise<MediaPrepared<Omit<ImageTask, 'inputImage' | 'inputMimeType'>>> {
  const settings = operationSettings(key, 'images.generate');
  const check = new PackageSettingsCheck();
  const format = check.value('output_format', body.output_format, settings.output_formats, 'png');
  const style = check.value('style', body.style, settings.styles);
  if (body.input_upload_id !== undefined && !settings.input_uploads) {
    check.refuse({
      path: 'input_upload_id',
      code: 'not_allowed_by_package',
      message: "input_upload_id: this key's package does not take input uploads for images.generate.",
    });
  }
  const input =
    body.input_upload_id === undefined || !settings.input_uploads
      ? undefined
      : await resolveInputUpload(db, key, body.input_upload_id, INPUT_UPLOAD_PURPOSES['images.generate'], check);
  check.done();
  return { task: { prompt: body.prompt, style, format }, engine: settings.engine, units: settings.units, keyId: key.id, input };
}

export async function generateImage(
  db: SqlDb,
  prepared: MediaPrepared<Omit<ImageTask, 'inputImage' | 'inputMimeType'>>,
  origin: string,
  signal: AbortSignal,
): Promise<EngineCall<FileOutput>> {
  const inputImage = prepared.input ? await loadUploadBytes(prepared.input.storageKey) : undefined;
  const call = await callEngine(
    db,
    prepared.engine,
    (engine) => engine.generateImage({ ...prepared.task, inputImage, inputMimeType: prepared.input?.mimeType }, signal),
    { signal, operation: 'images.generate' },
  );
  return afterEngine(call, (result) => storeOutput(db, prepared.keyId, result.bytes, result.mimeType, origin));
}

export function prepareAudioSpeech(body: AudioSpeechRequest, key: AuthenticatedKey): MediaPrepared<SpeechTask> {
  const settings = operationSettings(key, 'audio.speech');
  const check = new PackageSettingsCheck();
  const voice = check.value('voice', body.voice, settings.voices);
  const language = check.language('language', body.language, settings.languages);
  const format = check.value('output_format', body.output_format, settings.output_formats, 'mp3');
  // The package's limit, and the local engine's own where it answers first (any engine after it checks its own).
  const localFirst = engineNamesOf(settings.engine)[0] === 'local';
  const limit = Math.min(settings.max_duration_seconds ?? Infinity, localFirst ? LOCAL_SPEECH_MAX_SECONDS : Infinity);
  if (limit !== Infinity) {
    const seconds = estimateSpeechSeconds(body.text);
    if (seconds > limit) {
      const allows =
        limit === settings.max_duration_seconds ? "this key's package allows" : "the local engine of this key's package speaks";
      check.refuse({
        path: 'text',
        code: 'not_allowed_by_package',
        message: `text: about ${seconds} s of speech; ${allows} at most ${limit} s.`,
      });
    }
  }
  check.done();
  return { task: { text: body.text, voice, language, format }, engine: settings.engine, units: settings.units, keyId: key.id };
}

export async function synthesizeSpeech(
  db: SqlDb,
  prepared: MediaPrepared<SpeechTask>,
  origin: string,
  signal: AbortSignal,
): Promise<EngineCall<FileOutput>> {
  const call = await callEngine(db, prepared.engine, (engine) => engine.synthesizeSpeech(prepared.task, signal), {
    signal,
    operation: 'audio.speech',
  });
  return afterEngine(call, (result) => storeOutput(db, prepared.keyId, result.bytes, result.mimeType, origin));
}

export interface TranscribeSettings {
  language?: string;
  timestamps: 'none' | 'segment';
}

/** The input: an upload (its bytes come along when they were read to judge its length already), or a file sent inline. */
export type TranscribePrepared = Omit<MediaPrepared<TranscribeSettings>, 'input'> & {
  input: Pick<InputUpload, 'mimeType' | 'filename' | 'sizeBytes'> & Partial<Pick<InputUpload, 'id' | 'storageKey'>>;
  bytes?: Buffer;
  /** The recording's decoded length in seconds, when the package's max_input_seconds had it decoded already. */
  inputSeconds?: number;
};

export async function prepareAudioTranscribe(
  db: PrismaClient,
  body: AudioTranscribeRequest,
  key: AuthenticatedKey,
): Promise<TranscribePrepared> {
  const check = new PackageSettingsCheck();
  const { task, settings } = transcribeSettings(body, key, check);
  const upload = await resolveInputUpload(db, key, body.input_upload_id, INPUT_UPLOAD_PURPOSES['audio.transcribe'], check);
  check.done(); // an upload with a problem (then undefined) is among them
  const input = upload!;
  const bytes = settings.max_input_seconds === undefined ? undefined : await loadUploadBytes(input.storageKey);
  if (bytes) await refuseLongerInput(bytes, input.mimeType, settings.max_input_seconds!);
  return { task, engine: settings.engine, units: settings.units, keyId: key.id, input, bytes };
}

/** The package's settings for a transcription; what it does not allow is noted in `check`. */
function transcribeSettings(
  body: Pick<AudioTranscribeRequest, 'language' | 'timestamps'>,
  key: AuthenticatedKey,
  check: PackageSettingsCheck,
) {
  const settings = operationSettings(key, 'audio.transcribe');
  const language = check.language('language', body.language, settings.languages);
  const timestamps = check.value('timestamps', body.timestamps, settings.timestamps, 'segment');
  return { task: { language, timestamps }, settings };
}

/** audio.transcribe of a file sent with the call (checked by checkInlineInput), with the package's settings and length limit. */
export async function prepareInlineTranscribe(
  body: Pick<AudioTranscribeRequest, 'language' | 'timestamps'>,
  key: AuthenticatedKey,
  file: InlineInput,
): Promise<TranscribePrepared> {
  const check = new PackageSettingsCheck();
  const { task, settings } = transcribeSettings(body, key, check);
  check.done();
  const inputSeconds =
    settings.max_input_seconds === undefined ? undefined : await refuseLongerInput(file.bytes, file.mimeType, settings.max_input_seconds);
  const { bytes, ...input } = file;
  return { task, engine: settings.engine, units: settings.units, keyId: key.id, input, bytes, inputSeconds };
}

/**
 * How long a recording sent with the call lasts (OpenAI's verbose_json `duration`): as its
 * preparation decoded it, else decoded now; null when it does not decode.
 */
export async function recordingSeconds(prepared: TranscribePrepared, file: InlineInput): Promise<number | null> {
  if (prepared.inputSeconds !== undefined) return prepared.inputSeconds;
  const seconds = await readMediaSeconds(file.bytes, file.mimeType).catch(() => null);
  return seconds === null ? null : roundToMilliseconds(seconds);
}

const roundToMilliseconds = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * The package's `max_input_seconds`, judged at step 7 on the decoded length of the upload, so a
 * recording longer than the package sells is refused before anything is held or charged. It is
 * decoded no further than a second past the limit: hours of a long one would cost the server
 * seconds of CPU for a refusal. Returns the length, to the millisecond.
 */
async function refuseLongerInput(bytes: Buffer, mimeType: string, maxSeconds: number): Promise<number> {
  let seconds: number;
  try {
    seconds = await readMediaSeconds(bytes, mimeType, 'audio', maxSeconds + 1);
  } catch (error) {
    if (!(error instanceof MediaDecodeError)) throw error;
    const issue = { path: 'input_upload_id', code: 'undecodable_media', message: `input_upload_id: ${error.message}` };
    throw ApiError.validation([issue]);
  }
  if (seconds <= maxSeconds) return roundToMilliseconds(seconds);
  const message = `input_upload_id: the recording is longer than ${maxSeconds} s, which is the most this key's package transcribes.`;
  throw new ApiError('validation_error', {
    message,
    details: { issues: [{ path: 'input_upload_id', code: 'input_too_long', message }], max_input_seconds: maxSeconds },
  });
}

export async function transcribeUpload(db: SqlDb, prepared: TranscribePrepared, signal: AbortSignal): Promise<EngineCall<Transcript>> {
  const bytes = prepared.bytes ?? (await loadUploadBytes(prepared.input.storageKey!)); // an inline file's bytes always come along
  const call = await callEngine(
    db,
    prepared.engine,
    (engine) =>
      engine.transcribe(
        {
          bytes,
          mimeType: prepared.input.mimeType,
          filename: prepared.input.filename,
          ...prepared.task,
        },
        signal,
      ),
    // A provider that reports no duration: the recording's own length.
    {
      signal,
      operation: 'audio.transcribe',
      estimate: async () => ({ audioSeconds: await readMediaSeconds(bytes, prepared.input.mimeType) }),
    },
  );
  // The provider's usage went to the usage event (the call's report); the customer gets the transcript only.
  const { text, segments } = call.value;
  return { value: { text, segments: prepared.task.timestamps === 'none' ? [] : segments }, engines: call.engines };
}
