import { describe, expect, it } from 'vitest';
import { jobEventSchema } from '@/server/contract/webhooks';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { V1_ROUTES } from '@/server/surfaces/v1';

// The extensions of v1 in the OpenAPI document: job cancellation, GET /v1/key and the job
// webhook (OpenAPI 3.1 `webhooks`), while the v1 operations keep their shape.

const routes = V1_ROUTES.map((route) => route.doc);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const document = buildOpenApiDocument(routes, 'http://127.0.0.1:3000') as any;

describe('OpenAPI document: extensions of v1', () => {
  it('describes POST /v1/jobs/{jobId}/cancel with the Job answer and 409 job_not_cancellable', () => {
    const operation = document.paths['/v1/jobs/{jobId}/cancel'].post;
    expect(operation.operationId).toBe('cancelJob');
    expect(operation.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CancelJobRequest');
    expect(document.components.schemas.CancelJobRequest).toMatchObject({ type: 'object', additionalProperties: false });
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Job');
    expect(operation.responses['409'].description).toContain('`job_not_cancellable`');
    expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['Idempotency-Key', 'jobId']);
    expect(document.components.schemas.Job.properties.status.enum).toEqual(['submitted', 'running', 'succeeded', 'failed', 'cancelled']);
  });

  it('describes GET /v1/key with the Key answer, its rate headers and no request body', () => {
    const operation = document.paths['/v1/key'].get;
    expect(operation.operationId).toBe('getKey');
    expect(operation.requestBody).toBeUndefined();
    expect(operation.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Key');
    expect(Object.keys(operation.responses['200'].headers)).toContain('RateLimit-Remaining');
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '401', '405', '408', '429', '500', '503']);
    expect(Object.keys(document.components.schemas.Key.properties).sort()).toEqual(
      ['expires_at', 'limits', 'object', 'operations', 'package', 'prefix', 'remaining_units'].sort(),
    );
  });

  it('describes the job webhook under `webhooks`, with its signature headers and the JobEvent body', () => {
    const webhook = document.webhooks.jobEvent.post;
    expect(webhook.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/JobEvent');
    expect(webhook.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(document.components.schemas.JobEvent.properties.type.enum).toEqual(['job.succeeded', 'job.failed', 'job.cancelled']);
    expect(jobEventSchema.safeParse(document.components.schemas.JobEvent.example).success).toBe(true);
    expect(webhook.security).toEqual([]);
  });

  it('names bearer as the default security, which the public operations alone set aside', () => {
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.paths['/v1/openapi.json'].get.security).toEqual([]);
    expect(document.paths['/v1/key'].get.security).toEqual([{ bearer: [] }]);
  });

  it("lists the minute's RateLimit headers on each error that can follow the rate step, and describes the window as sliding", () => {
    const rateHeaderNames = ['RateLimit', 'RateLimit-Limit', 'RateLimit-Policy', 'RateLimit-Remaining', 'RateLimit-Reset'];
    const headersOf = (path: string, method: string, status: string) => Object.keys(document.paths[path][method].responses[status].headers);
    // Answers an outside audit saw carry them: a job read's 404, a cancel's 409, an upload completion's 422, a 503.
    for (const [path, method, status] of [
      ['/v1/jobs/{jobId}', 'get', '404'],
      ['/v1/jobs/{jobId}/cancel', 'post', '409'],
      ['/v1/uploads/{uploadId}/complete', 'post', '422'],
      ['/v1/text/generate', 'post', '503'],
      ['/v1/text/generate', 'post', '402'],
      ['/v1/text/generate', 'post', '429'],
      ['/v1/uploads', 'post', '413'], // what the key holds in storage, judged with its units
    ] as const) {
      expect(headersOf(path, method, status), `${method} ${path} ${status}`).toEqual(expect.arrayContaining(rateHeaderNames));
    }
    // Refusals before the rate step take no point and carry none.
    for (const status of ['400', '401', '413', '415']) expect(headersOf('/v1/text/generate', 'post', status)).not.toContain('RateLimit');
    const reset = document.paths['/v1/text/generate'].post.responses['200'].headers['RateLimit-Reset'].description as string;
    expect(reset).toContain('sliding');
    expect(reset).not.toContain('fixed');
    // CONTRACT.md §2: every 409 carries Retry-After, job_not_cancellable's too.
    expect(document.paths['/v1/jobs/{jobId}/cancel'].post.responses['409'].headers['Retry-After']).toBeDefined();
  });

  it("GET /v1/jobs/{jobId} counts against the key's requests per minute: its answer carries the rate headers", () => {
    expect(Object.keys(document.paths['/v1/jobs/{jobId}'].get.responses['200'].headers).sort()).toEqual([
      'Cache-Control',
      'RateLimit',
      'RateLimit-Limit',
      'RateLimit-Policy',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'X-Request-Id',
    ]);
  });
});

describe('OpenAPI document: a wrong method', () => {
  it('is 405 with its Allow header on every operation (CONTRACT.md §1; none listed it: openapi audit)', () => {
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    const operations = Object.values(paths).flatMap((methods) => Object.values(methods));
    expect(operations.length).toBeGreaterThan(10);
    for (const operation of operations) expect(Object.keys(operation.responses['405']?.headers ?? {})).toContain('Allow');
  });

  it('a request not received in time is 408 invalid_request on every operation, and every answer has its request id (openapi audit)', () => {
    const paths = document.paths as Record<string, Record<string, { responses: Record<string, { description: string; headers: object }> }>>;
    for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
      expect(operation.responses['408']?.description).toMatch(/not received in time.* Codes: `invalid_request`\.$/);
      for (const response of Object.values(operation.responses)) {
        expect(response.headers).toMatchObject({ 'X-Request-Id': { required: true }, 'Cache-Control': { required: true } });
      }
    }
  });
});
