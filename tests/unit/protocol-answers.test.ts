import { describe, expect, it } from 'vitest';
import { errorResponseSchema } from '../../server/contract/errors';
import { clientErrorAnswer, connectAnswer, nonPathTargetAnswer, rawAnswer } from '@/server/http/edge/protocol-answers';

function expectEnvelope(answer: { status: number; headers: Record<string, string>; body: string }, status: number, code: string) {
  expect(answer.status).toBe(status);
  const body = errorResponseSchema.parse(JSON.parse(answer.body));
  expect(body.error.code).toBe(code);
  expect(answer.headers['X-Request-Id']).toBe(body.error.request_id);
  expect(answer.headers['X-Request-Id']).toMatch(/^req_[A-Za-z0-9_-]{24,}$/);
  expect(answer.headers['Cache-Control']).toBe('no-store');
}

describe('answers npm start gives before Next sees a request', () => {
  it("Node's parser errors keep Node's statuses, in the envelope", () => {
    expectEnvelope(clientErrorAnswer('HPE_HEADER_OVERFLOW'), 400, 'invalid_request');
    expectEnvelope(clientErrorAnswer('HPE_CHUNK_EXTENSIONS_OVERFLOW'), 413, 'payload_too_large');
    expectEnvelope(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT'), 408, 'invalid_request');
    expectEnvelope(clientErrorAnswer('HPE_INVALID_METHOD'), 400, 'invalid_request');
    expectEnvelope(clientErrorAnswer(undefined), 400, 'invalid_request');
  });

  it('OPTIONS * is 204 with the methods served; other targets that are no path are 400', () => {
    const options = nonPathTargetAnswer('OPTIONS', '*');
    expect(options).toMatchObject({ status: 204, body: '', headers: { Allow: 'GET, HEAD, POST, PUT', 'Cache-Control': 'no-store' } });
    expectEnvelope(nonPathTargetAnswer('GET', '*'), 400, 'invalid_request');
    expectEnvelope(nonPathTargetAnswer('POST', 'example.com:443'), 400, 'invalid_request');
    expectEnvelope(connectAnswer(), 405, 'method_not_allowed');
  });

  it('a raw answer is a complete HTTP/1.1 response that closes the connection', () => {
    const text = rawAnswer(clientErrorAnswer('HPE_HEADER_OVERFLOW'));
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(head).toContain('\r\nConnection: close');
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body!)}`);
    expect(JSON.parse(body!).error.code).toBe('invalid_request');
  });
});
