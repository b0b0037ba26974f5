import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import * as gen from '../contract/generation';
import { errorResponseSchema } from '../contract/errors';
import * as jobs from '../contract/jobs-and-uploads';
import { ERROR_CATALOG, type ErrorCode } from '../domain/errors';

// The OpenAPI 3.1 document of /v1, generated from the same zod schemas that validate
// requests, so the two cannot drift apart.

const requestIdHeader = {
  description: 'Identifier of this request (`req_` + 24 or more url-safe characters); equals `error.request_id` on errors.',
  schema: { type: 'string' as const, pattern: '^req_[A-Za-z0-9_-]{24,}$' },
};
const commonHeaders = {
  'X-Request-Id': requestIdHeader,
  'Cache-Control': { description: 'Always `no-store`.', schema: { type: 'string' as const, enum: ['no-store'] } },
};
const retryAfter = { description: 'Seconds to wait before retrying with the same Idempotency-Key.', schema: { type: 'integer' as const, minimum: 1 } };
const rateHeaders = {
  'RateLimit-Policy': { description: 'The key’s per-minute policy as draft-ietf-httpapi-ratelimit-headers’ structured field: `"minute";q=<requests per minute>;w=60`.', schema: { type: 'string' as const } },
  RateLimit: { description: 'The current minute as draft-ietf-httpapi-ratelimit-headers’ structured field: `"minute";r=<requests left>;t=<seconds until the window resets>`.', schema: { type: 'string' as const } },
  'RateLimit-Limit': { description: 'Requests allowed per minute by the key’s package (on fresh answers; a replay carries the stored response’s headers only).', schema: { type: 'integer' as const } },
  'RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' as const } },
  'RateLimit-Reset': { description: 'Seconds until the minute window resets. The window is fixed: it opens with the first counted request and allows the package’s requests per minute until it closes 60 s later. Requests refused before the rate step (401 to 422), replays and idempotency conflicts are not counted; a request refused by the concurrency limit is.', schema: { type: 'integer' as const } },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request, or a missing or malformed Idempotency-Key.',
  401: 'Missing, malformed, unknown, revoked or expired API key.',
  402: 'The key’s quota has fewer units left than this call costs; `details` says how many it needs and how many are left (`{"required_units","remaining_units"}`).',
  403: 'The key’s package does not include this operation.',
  404: 'Not found, or not owned by the calling key.',
  405: 'Known path, wrong method (see the Allow header).',
  409: 'A request with the same Idempotency-Key is still running.',
  413: 'Request body over 1 MiB, or a declared upload above the package limit.',
  415: 'Content-Type is not application/json.',
  422: 'Schema or package-settings validation failed (no units charged), or the Idempotency-Key was used for a different request.',
  429: 'Rate or concurrency limit reached.',
  500: 'Unexpected internal failure.',
  503: 'Provider (or the service’s database) unavailable; no units were charged.',
};

function errorResponses(statuses: number[]): ZodOpenApiResponsesObject {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => ERROR_CATALOG[code].status === status);
      const headers = {
        ...commonHeaders,
        ...([409, 429, 503].includes(status) ? { 'Retry-After': retryAfter } : {}),
        ...(status === 429 || status === 402 ? rateHeaders : {}),
        ...(status === 405 ? { Allow: { description: 'Methods this path accepts.', schema: { type: 'string' as const } } } : {}),
        ...(status === 401 ? { 'WWW-Authenticate': { description: 'The scheme to authenticate with: `Bearer realm="api"`, with `error="invalid_token"` when a Bearer token was sent (RFC 6750 §3.1).', schema: { type: 'string' as const } } } : {}),
      };
      return [
        String(status),
        {
          description: `${STATUS_TEXT[status]} Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
          headers,
          content: { 'application/json': { schema: errorResponseSchema } },
        },
      ];
    }),
  );
}

const POST_ERRORS = [400, 401, 402, 403, 404, 405, 409, 413, 415, 422, 429, 500, 503];
const idempotencyKey = z
  .string()
  .regex(/^(?:[A-Za-z0-9_.~:-]{8,128}|"[A-Za-z0-9_.~:-]{8,128}")$/)
  .meta({
    description: '8 to 128 characters from `A-Z a-z 0-9 - _ . ~ :`, bare or as an RFC 8941 string (`"abc12345"`). Reuse it only to retry the same request: the same key, method and path, and a body with the same JSON value (member order, whitespace and escapes do not matter; an optional field sent with its default value makes a different request). An error answer leaves the key free for a retry, except that 409 means a request with it is still running, and a retry after a 503 may find that the work did complete and get it replayed; a 2xx is replayed for 24 hours (the default retention).',
    example: 'order-1234-attempt',
  });

function post(
  summary: string,
  operationId: string,
  request: z.ZodType,
  success: { status: 200 | 201 | 202; schema: z.ZodType; description: string },
  pathParams?: z.ZodObject,
): ZodOpenApiOperationObject {
  return {
    operationId,
    summary,
    security: [{ bearer: [] }],
    requestParams: { header: z.object({ 'Idempotency-Key': idempotencyKey }), ...(pathParams ? { path: pathParams } : {}) },
    requestBody: { required: true, content: { 'application/json': { schema: request } } },
    responses: {
      [String(success.status)]: {
        description: `${success.description} A retry with the same Idempotency-Key replays this response byte for byte with \`Idempotent-Replayed: true\`.`,
        headers: { ...commonHeaders, ...rateHeaders, 'Idempotent-Replayed': { description: 'Present (`true`) on a replayed response.', schema: { type: 'string' as const, enum: ['true'] } } },
        content: { 'application/json': { schema: success.schema } },
      },
      ...errorResponses(POST_ERRORS),
    },
  };
}

export function buildOpenApiDocument(serverUrl?: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Workflow Generation Service',
      version: '1.0.0',
      description:
        'Strict JSON workflow operations sold as fixed packages. Every request needs `Authorization: Bearer <API_KEY>`; every POST needs `Idempotency-Key` and `Content-Type: application/json`. Lengths count Unicode code points. Timestamps are RFC 3339 UTC with milliseconds. A path with a trailing slash or repeated slashes names the same operation (no redirect).',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: `wgs_live_…`' } } },
    paths: {
      '/v1/text/generate': { post: post('Generate text', 'textGenerate', gen.textGenerateRequest, { status: 200, schema: gen.textGenerateResponse, description: 'Generation result.' }) },
      '/v1/code/generate': { post: post('Analyze or generate code (never executed)', 'codeGenerate', gen.codeGenerateRequest, { status: 200, schema: gen.codeGenerateResponse, description: 'Generation result.' }) },
      '/v1/images/generate': { post: post('Generate or transform an image', 'imagesGenerate', gen.imagesGenerateRequest, { status: 200, schema: gen.imagesGenerateResponse, description: 'Generation result with a short-lived private URL.' }) },
      '/v1/videos/generate': { post: post('Submit a video job', 'videosGenerate', jobs.videosGenerateRequest, { status: 202, schema: jobs.submittedJobSchema, description: 'The job, status `submitted`; poll GET /v1/jobs/{jobId}.' }) },
      '/v1/audio/speech': { post: post('Generate speech audio', 'audioSpeech', gen.audioSpeechRequest, { status: 200, schema: gen.audioSpeechResponse, description: 'Generation result with a short-lived private URL.' }) },
      '/v1/audio/transcribe': { post: post('Transcribe a verified upload', 'audioTranscribe', gen.audioTranscribeRequest, { status: 200, schema: gen.audioTranscribeResponse, description: 'Generation result with text and segments.' }) },
      '/v1/uploads': { post: post('Create a direct private upload', 'createUpload', jobs.createUploadRequest, { status: 201, schema: jobs.createdUploadSchema, description: 'The upload, with `upload_url`, `upload_method` and `upload_headers` for sending the bytes directly (without the API key).' }) },
      '/v1/uploads/{uploadId}/complete': {
        post: post('Verify and complete an upload', 'completeUpload', jobs.completeUploadRequest, { status: 200, schema: jobs.uploadSchema, description: 'The verified upload. Completing an already verified upload returns it again when `sha256` is its digest; any other `sha256` is 422 `validation_error` (issue code `sha256_mismatch`).' }, z.object({ uploadId: z.string().regex(/^upl_[A-Za-z0-9_-]{12,80}$/).meta({ example: 'upl_3Yb7QmZk9pW2xN4cR8tL1vHd' }) })),
      },
      '/v1/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This OpenAPI document (public: no API key needed)',
          security: [],
          responses: {
            '200': { description: 'The OpenAPI 3.1 document of /v1.', headers: commonHeaders, content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } } },
            ...errorResponses([405]),
          },
        },
      },
      '/v1/jobs/{jobId}': {
        get: {
          operationId: 'getJob',
          summary: 'Retrieve an owned video job',
          security: [{ bearer: [] }],
          requestParams: { path: z.object({ jobId: z.string().regex(/^job_[A-Za-z0-9_-]+$/).meta({ example: 'job_9sXk2LqP0aZb7RtY3wVn5mCe' }) }) },
          responses: {
            '200': { description: 'The job; `result.url` is a fresh signed URL on every read.', headers: commonHeaders, content: { 'application/json': { schema: jobs.jobSchema } } },
            ...errorResponses([401, 404, 405, 500, 503]),
          },
        },
      },
    },
  });
}
