import { audioTranscribeRoute } from '../../routes/media';
import type { RouteContext } from '../../route-context';
import { checkInlineInput } from '../../../domain/generation/inline-input';
import { prepareInlineTranscribe, recordingSeconds } from '../../../domain/generation/media';
import { INPUT_UPLOAD_PURPOSES } from '../../../domain/operations';
import { LANGUAGE_PATTERN } from '../../../contract/values';
import { isApiError, validationIssuesOf } from '../../../domain/errors';
import type { GenerationResult } from '../../../domain/billing/reservation';
import { baseHeaders, jsonResponse } from '../../responses';
import { refuseParam } from '../openai-errors';
import { unitHeaders } from '../openai-headers';
import { resolveModel } from '../openai-models';
import { multipartFingerprintBody, readMultipartBody, type MultipartBody } from '../openai-request';
import { defineOpenAIPostRoute, translated, type Translation } from '../openai-route';

// POST /openai/v1/audio/transcriptions: audio.transcribe of the file sent inline (multipart), checked
// as an upload is (size against the package's limit, type, magic bytes) and run by the /v1 route's steps.

const FORMATS = ['json', 'text', 'verbose_json'] as const;
type Format = (typeof FORMATS)[number];

interface StoredTranscript {
  output: { text: string; segments: { start: number; end: number; text: string }[] };
  units: GenerationResult['usage'];
  /** The recording's length (verbose_json), kept for a replay; absent from answers stored before it was. */
  duration?: number | null;
  /** The language transcribed in (the request's, else the package's default; none when the engine chose), kept for a replay. */
  language?: string | null;
}

function field(body: MultipartBody, name: string): string | undefined {
  const value = body.fields[name];
  if (Array.isArray(value)) throw refuseParam(name, `${name} must be sent once.`, 'invalid_value');
  return value;
}

function readFields(body: MultipartBody) {
  const known = new Set(['model', 'language', 'response_format', 'timestamp_granularities', 'temperature']);
  const unknown = Object.keys(body.fields).find((name) => !known.has(name)) ?? Object.keys(body.files).find((name) => name !== 'file');
  if (unknown) throw refuseParam(unknown, `${unknown} is not supported by this service (docs/openai-compatible.md lists what is).`);
  const format = (field(body, 'response_format') ?? 'json') as Format;
  if (!FORMATS.includes(format))
    throw refuseParam('response_format', `response_format must be one of ${FORMATS.join(', ')} here.`, 'unsupported_value');
  const temperature = field(body, 'temperature');
  if (temperature !== undefined && (temperature.trim() === '' || Number(temperature) !== 0))
    throw refuseParam('temperature', 'temperature: only 0 is supported by this service.');
  const language = field(body, 'language');
  // /v1's rule for the field (a form's field is not read by its schema): an engine gets a tag, and an error no essay.
  if (language !== undefined && !LANGUAGE_PATTERN.test(language))
    throw refuseParam('language', 'language must be an ISO-639-1 code such as en, or a tag such as en-US.', 'invalid_value');
  const granularities = [body.fields.timestamp_granularities ?? []].flat();
  if (granularities.some((value) => value !== 'segment')) {
    throw refuseParam('timestamp_granularities', 'timestamp_granularities: only "segment" is supported.', 'unsupported_value');
  }
  if (granularities.length > 0 && format !== 'verbose_json') {
    throw refuseParam('timestamp_granularities', 'timestamp_granularities needs response_format verbose_json.', 'invalid_value');
  }
  const file = body.files.file;
  if (!file) throw refuseParam('file', 'file is required: the audio, as a multipart part.', 'missing_required_parameter');
  return { format, language, file, segments: format === 'verbose_json', granularitiesSent: granularities.length > 0 };
}

function answer(stored: string, ctx: RouteContext, format: Format, requested: string | undefined): Response {
  const { output, units, duration: recorded, language = requested } = JSON.parse(stored) as StoredTranscript;
  const headers = unitHeaders(units);
  if (format === 'text') {
    const plain = baseHeaders(ctx.requestId, headers);
    plain.set('Content-Type', 'text/plain; charset=utf-8');
    return new Response(output.text, { status: 200, headers: plain });
  }
  if (format === 'json') return jsonResponse(200, { text: output.text }, ctx.requestId, headers);
  const segments = output.segments.map((segment, id) => ({ id, ...segment }));
  // The recording's length, as OpenAI's; where it did not decode, where its last segment ends.
  const duration = recorded ?? output.segments.at(-1)?.end ?? 0;
  return jsonResponse(
    200,
    { task: 'transcribe', language: language ?? null, duration, text: output.text, segments },
    ctx.requestId,
    headers,
  );
}

function translateTranscription(body: MultipartBody, ctx: RouteContext): Translation<unknown> {
  resolveModel(ctx.key, field(body, 'model'), ['audio.transcribe']);
  const request = readFields(body);
  let duration: number | null = null;
  let language: string | null = null;
  return translated({
    steps: audioTranscribeRoute.steps,
    prepare: async () => {
      const file = await checkInlineInput(ctx.key, request.file, 'file', INPUT_UPLOAD_PURPOSES['audio.transcribe'].map(prefixOf));
      const prepared = await prepareInlineTranscribe(
        { language: request.language, timestamps: request.segments ? 'segment' : undefined },
        ctx.key,
        file,
      ).catch((error: unknown) => {
        throw request.granularitiesSent ? error : segmentsRefusal(error);
      });
      if (request.segments) duration = await recordingSeconds(prepared, file);
      language = prepared.task.language ?? null;
      return prepared;
    },
    params: { language: 'language', timestamps: 'timestamp_granularities', file: 'file', input_upload_id: 'file' },
    fingerprinted: multipartFingerprintBody(body),
    render: (result) => JSON.stringify({ output: result.output, units: result.usage, duration, language } as StoredTranscript),
    respond: (stored) => answer(stored, ctx, request.format, request.language),
  });
}

/**
 * verbose_json asks for segment timestamps: a package that allows none refuses it naming
 * response_format, the parameter sent (it named timestamp_granularities, never sent: settings audit).
 */
function segmentsRefusal(error: unknown): unknown {
  if (!isApiError(error) || !validationIssuesOf(error).some((issue) => issue.path === 'timestamps')) return error;
  return refuseParam(
    'response_format',
    "response_format: verbose_json's segment timestamps are not allowed by this key's package; ask for json or text.",
    'unsupported_value',
  );
}

/** The type prefix of an upload purpose: `audio_input` takes `audio/`. */
const prefixOf = (purpose: string) => `${purpose.slice(0, purpose.indexOf('_'))}/`;

export const audioTranscriptionsRoute = defineOpenAIPostRoute({
  path: '/openai/v1/audio/transcriptions',
  operationId: 'createTranscription',
  operation: 'audio.transcribe',
  sells: ['audio.transcribe'],
  summary: 'Transcribe audio sent inline (audio.transcribe)',
  read: (request, key) => readMultipartBody(request, key.maxUploadBytes),
  translate: translateTranscription,
});
