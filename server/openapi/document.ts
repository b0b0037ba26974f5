import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { ERROR_CATALOG, type ErrorCode } from '../contract/error-catalog';
import { errorResponseSchema } from '../contract/errors';
import { jobEventSchema } from '../contract/webhooks';
import { IDEMPOTENCY_HEADER_PATTERN, REQUEST_ID_PATTERN } from '../contract/values';
import type { RouteDoc } from '../http/route-doc';

// The OpenAPI 3.1 document of /v1, generated from its route table (server/surfaces/v1.ts: each
// route's method, path, request and response schemas and error statuses) and the same zod schemas
// that validate requests, so the document cannot drift from what the routes do.

const requestIdHeader = {
  description: 'Identifier of this request (`req_` + 24 or more url-safe characters); equals `error.request_id` on errors.',
  required: true,
  schema: { type: 'string' as const, pattern: REQUEST_ID_PATTERN.source },
};
/** On every answer (CONTRACT.md §1). */
const commonHeaders = {
  'X-Request-Id': requestIdHeader,
  'Cache-Control': { description: 'Always `no-store`.', required: true, schema: { type: 'string' as const, enum: ['no-store'] } },
};
const retryAfter = {
  description: 'Seconds to wait before retrying with the same Idempotency-Key.',
  schema: { type: 'integer' as const, minimum: 1 },
};
const rateHeaders = {
  'RateLimit-Policy': {
    description:
      'The key’s per-minute policy as draft-ietf-httpapi-ratelimit-headers’ structured field: `"minute";q=<requests per minute>;w=60`. With the other `RateLimit` headers on every answer that took a point of the key’s minute (a 2xx, a 402, a job read’s 404, a cancel’s 409, an upload completion’s 422, a 503 after the checks, the concurrency limit’s and the daily budget’s 429) and on the minute’s own 429.',
    schema: { type: 'string' as const },
  },
  RateLimit: {
    description:
      'The current minute as draft-ietf-httpapi-ratelimit-headers’ structured field: `"minute";r=<requests left>;t=<seconds until the window resets>`.',
    schema: { type: 'string' as const },
  },
  'RateLimit-Limit': {
    description:
      'Requests allowed per minute by the key’s package (on the answers that took a point of the minute; a replay takes none and carries none).',
    schema: { type: 'integer' as const },
  },
  'RateLimit-Remaining': { description: 'Requests left in the current minute.', schema: { type: 'integer' as const } },
  'RateLimit-Reset': {
    description:
      'Seconds until the oldest request counted in the key’s sliding 60-second window leaves it (a place frees then). Counted: the answers that took a point of the minute (see `RateLimit-Policy`); requests refused before the rate step (401 to 422, but for an upload’s 413 for what its key holds in storage, which comes after it), replays and idempotency conflicts are not; a request refused by the concurrency limit or the daily budget is.',
    schema: { type: 'integer' as const },
  },
};
/** Error statuses that can come after the rate step, so may carry the minute's count (docs/api.md, Response headers). */
const COUNTED_ERROR_STATUSES = [402, 404, 409, 422, 429, 503];

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request, or a missing or malformed Idempotency-Key.',
  401: 'Missing, malformed, unknown, revoked or expired API key.',
  402: 'The key’s quota has fewer units left than this call costs; `details` says how many it needs and how many are left (`{"required_units","remaining_units"}`).',
  403: 'The key’s package does not include this operation.',
  404: 'Not found, or not owned by the calling key.',
  405: 'Known path, wrong method (see the Allow header).',
  408: 'The request (its headers, or its body) was not received in time; the connection closes.',
  409: 'A request with the same Idempotency-Key is still running; or, on POST /v1/jobs/{jobId}/cancel, the job has already ended (`job_not_cancellable`, its `status` in `details`).',
  413: 'Request body over 1 MiB, or a declared upload above the package limit; on POST /v1/uploads also an upload its key cannot hold with what it holds (`max_stored_bytes`, `details` `{"max_stored_bytes","stored_bytes"}`: judged after the rate step, the only 413 with the RateLimit headers).',
  415: 'Content-Type is not application/json.',
  422: 'Schema or package-settings validation failed (no units charged), or the Idempotency-Key was used for a different request.',
  429: 'Rate or concurrency limit reached, or the key’s daily provider-cost budget; or too many failed authentications from the client’s address (before any key is read: no `RateLimit` headers).',
  500: 'Unexpected internal failure.',
  503: 'Provider (or the service’s database) unavailable; no units were charged.',
};

function errorResponses(statuses: number[], counted: number[]): ZodOpenApiResponsesObject {
  return Object.fromEntries(
    statuses.map((status) => {
      const codes =
        EDGE_CODES[status] ?? (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => ERROR_CATALOG[code].status === status);
      const headers = {
        ...commonHeaders,
        ...([409, 429, 503].includes(status) ? { 'Retry-After': retryAfter } : {}),
        ...(counted.includes(status) ? rateHeaders : {}),
        ...(status === 405 ? { Allow: { description: 'Methods this path accepts.', schema: { type: 'string' as const } } } : {}),
        ...(status === 401
          ? {
              'WWW-Authenticate': {
                description:
                  'The scheme to authenticate with: `Bearer realm="api"`, with `error="invalid_token"` when a Bearer token was sent (RFC 6750 §3.1).',
                schema: { type: 'string' as const },
              },
            }
          : {}),
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

const idempotencyKey = z.string().regex(IDEMPOTENCY_HEADER_PATTERN).meta({
  description:
    '8 to 128 characters from `A-Z a-z 0-9 - _ . ~ :`, bare or as an RFC 8941 string (`"abc12345"`). Reuse it only to retry the same request: the same key, method and path, and a body with the same JSON value (member order, whitespace and escapes do not matter; an optional field sent with its default value makes a different request). An error answer leaves the key free for a retry, except that 409 means a request with it is still running, and a retry after a 503 may find that the work did complete and get it replayed; a 2xx is replayed for 24 hours (the default retention).',
  example: 'order-1234-attempt',
});

const replayedHeader = { description: 'Present (`true`) on a replayed response.', schema: { type: 'string' as const, enum: ['true'] } };

/** Answers of the server's edge, before any route, in a code the catalog gives another status. */
const EDGE_CODES: Partial<Record<number, ErrorCode[]>> = { 408: ['invalid_request'] };

/**
 * Every path answers another method 405 with its `Allow` (CONTRACT.md §1), and a request not
 * received in time 408 (docs/api.md, Requests), whatever its route lists.
 */
const withEveryPathsAnswers = (statuses: number[]) => [...new Set([...statuses, 405, 408])].sort((a, b) => a - b);

/** A POST answers from its idempotency store on a retry, and tells the minute's rate count. */
function operationOf(route: RouteDoc): ZodOpenApiOperationObject {
  const post = route.method === 'POST';
  const { status, schema, description } = route.response;
  const header = post ? { header: z.object({ 'Idempotency-Key': idempotencyKey }) } : {};
  const path = route.pathParams ? { path: route.pathParams } : {};
  return {
    operationId: route.operationId,
    summary: route.summary,
    security: route.public ? [] : [{ bearer: [] }],
    ...(post || route.pathParams ? { requestParams: { ...header, ...path } } : {}),
    ...(route.request ? { requestBody: { required: true, content: { 'application/json': { schema: route.request } } } } : {}),
    responses: {
      [String(status)]: {
        description: [
          post
            ? `${description} A retry with the same Idempotency-Key replays this response byte for byte with \`Idempotent-Replayed: true\`.`
            : `${description} \`HEAD\` answers as \`GET\` does, without the body${route.rateLimited ? ', and counts against the minute as it does' : ''}.`,
          ...(route.eventStream ? [route.eventStream.description] : []),
        ].join('\n\n'),
        headers: post
          ? { ...commonHeaders, ...rateHeaders, 'Idempotent-Replayed': replayedHeader }
          : { ...commonHeaders, ...(route.rateLimited ? rateHeaders : {}) },
        content: {
          'application/json': { schema },
          ...(route.eventStream ? { 'text/event-stream': { schema: route.eventStream.event } } : {}),
        },
      },
      ...errorResponses(withEveryPathsAnswers(route.errors), [...COUNTED_ERROR_STATUSES, ...(route.countedErrors ?? [])]),
    },
  };
}

/** What a key's webhook endpoint receives (an extension of v1): OpenAPI 3.1 `webhooks`. */
const jobEventWebhook: ZodOpenApiOperationObject = {
  operationId: 'jobEvent',
  // Signed with the endpoint's secret (below), not called with an API key.
  security: [],
  summary: 'A job of the key ended (Standard Webhooks; extension of v1)',
  description:
    'POSTed to the endpoint an operator set for the key when one of its video jobs ends. Verify the signature before trusting the body (e.g. with the `standardwebhooks` package and the `whsec_` secret). ' +
    'Delivery is at least once: deduplicate on `webhook-id`, which every attempt of one event repeats. A 2xx answer within 15 s ends the delivery; anything else (a redirect included: it is never followed) is retried on the service’s schedule (by default after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, with jitter), after `Retry-After` at the earliest on a 429 or 503. `410 Gone` disables the endpoint.',
  requestParams: {
    header: z.object({
      'webhook-id': z.string().meta({ description: 'The event’s id (`msg_…`), the same on every attempt.' }),
      'webhook-timestamp': z.string().meta({ description: 'Unix seconds when this attempt was signed.' }),
      'webhook-signature': z.string().meta({
        description:
          '`v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the `whsec_` secret.',
      }),
    }),
  },
  requestBody: { required: true, content: { 'application/json': { schema: jobEventSchema } } },
  responses: {
    '200': { description: 'Received (any 2xx). Answer quickly; do the work after answering.' },
    '410': { description: 'The endpoint is gone: the key’s webhook is disabled until an operator sets it again.' },
  },
};

function pathsOf(routes: readonly RouteDoc[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operationOf(route) };
  return paths;
}

export function buildOpenApiDocument(routes: readonly RouteDoc[], serverUrl?: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Workflow Generation Service',
      version: '1.0.0',
      description:
        'Strict JSON workflow operations sold as fixed packages. Every request needs `Authorization: Bearer <API_KEY>`; every POST needs `Idempotency-Key` and `Content-Type: application/json`. Lengths count Unicode code points. Timestamps are RFC 3339 UTC with milliseconds. A path with a trailing slash or repeated slashes names the same operation (no redirect).',
    },
    ...(serverUrl ? { servers: [{ url: serverUrl }] } : {}),
    // The default, which every operation but the public ones (security: []) keeps. The reference
    // page (Scalar) also takes its selected scheme from here, whatever order its parts mount in.
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: `wgs_live_…`' } } },
    paths: pathsOf(routes),
    webhooks: { jobEvent: { post: jobEventWebhook } },
  });
}
