import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disconnectDb } from '@/server/db/client';
import { startTracing, tracingState } from '@/server/observability/tracing';
import { api, call, createTestKey } from '../../helpers/api';

// With OTEL_EXPORTER_OTLP_ENDPOINT set, a /v1 request is one trace: a server span carrying the
// request id, the pipeline's steps, the engine call and the PostgreSQL statements as children,
// exported over OTLP/HTTP to (here) an in-process receiver.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const received: OtlpSpan[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type']?.startsWith('application/json')) {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) received.push(...scope.spans);
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await tracingState()?.shutdown();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  await new Promise((resolve) => receiver.close(resolve));
  await disconnectDb();
});

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

describe('traces', () => {
  it('reach an OTLP receiver: the request span with its id, its steps, the engine call and SQL statements', async () => {
    const key = await createTestKey();
    expect(tracingState()).toBeUndefined();
    const untraced = await call(api, '/v1/text/generate', { input: 'hi' }, { key: key.key });
    await startTracing('wgs-test');
    const result = await call(api, '/v1/text/generate', { input: 'hi' }, { key: key.key });
    expect(result.status).toBe(200);
    await tracingState()!.forceFlush();

    const requestId = result.headers.get('x-request-id');
    const root = received.find((span) => span.name === 'POST /v1/text/generate' && attribute(span, 'wgs.request_id') === requestId);
    expect(root).toBeDefined();
    expect(attribute(root!, 'http.response.status_code')).toBe(200);
    expect(attribute(root!, 'wgs.operation')).toBe('text.generate');
    expect(attribute(root!, 'wgs.engine')).toBe('local');
    expect(String(attribute(root!, 'wgs.key_prefix'))).toBe(key.key.slice(0, 13));

    const trace = received.filter((span) => span.traceId === root!.traceId);
    const children = trace.filter((span) => span.parentSpanId === root!.spanId).map((span) => span.name);
    expect(children).toEqual(expect.arrayContaining(['authenticate', 'reserve', 'run', 'settle']));
    const run = trace.find((span) => span.name === 'run' && span.parentSpanId === root!.spanId)!;
    expect(trace.some((span) => span.name === 'provider_call' && span.parentSpanId === run.spanId)).toBe(true);
    // PostgreSQL statements (pg instrumentation) inside the steps that make them.
    const statements = trace.filter((span) => span.attributes.some((a) => a.key === 'db.system' || a.key === 'db.system.name'));
    expect(statements.length).toBeGreaterThanOrEqual(2);
    // Nothing secret in any attribute: no key, no body.
    // The request made before tracing started left no span.
    expect(received.some((span) => attribute(span, 'wgs.request_id') === untraced.headers.get('x-request-id'))).toBe(false);
    const text = JSON.stringify(trace);
    expect(text).not.toContain(key.key);
    expect(text).not.toContain('"hi"');
  });
});
