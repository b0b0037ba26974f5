import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as metricsRoute from '@/app/metrics/route';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPool } from '@/server/db/client';
import { freePort } from '@/server/db/free-port';
import { isLoopbackHost } from '@/server/config/loopback-host';
import { startMetricsServer } from '@/server/observability/metrics-endpoint';
import { enableMetrics } from '@/server/observability/metrics';
import { api, call, createTestKey } from '../../helpers/api';
import { parsePrometheusText, sampleValue } from '../../helpers/prometheus-text';

// GET /metrics: Prometheus text on METRICS_PORT, on the app's port only to the bearer of
// METRICS_TOKEN (401 without it), 404 on the app's port when no token is set.

const TOKEN = 'metrics-token-0123456789abcdef';
const TEXT = '/v1/text/generate';

function scrapeRequest(authorization?: string): Request {
  return new Request('http://127.0.0.1:3999/metrics', { headers: authorization ? { Authorization: authorization } : {} });
}

beforeAll(async () => {
  await enableMetrics();
});
afterEach(() => {
  delete process.env.METRICS_TOKEN;
  resetConfigForTests();
});
afterAll(async () => {
  await disconnectDb();
});

describe('GET /metrics on the app port', () => {
  it('is 404 when METRICS_TOKEN is not set', async () => {
    const response = await metricsRoute.GET(scrapeRequest(`Bearer ${TOKEN}`));
    expect(response.status).toBe(404);
  });

  it('takes the scheme in any case, as /v1 does (RFC 9110 §11.1)', async () => {
    process.env.METRICS_TOKEN = TOKEN;
    resetConfigForTests();
    for (const scheme of ['bearer', 'BEARER']) expect((await metricsRoute.GET(scrapeRequest(`${scheme} ${TOKEN}`))).status).toBe(200);
  });

  it('answers within READINESS_TIMEOUT_MS when the database does not answer, saying so (wgs_database_up 0)', async () => {
    process.env.METRICS_TOKEN = TOKEN;
    process.env.READINESS_TIMEOUT_MS = '300';
    resetConfigForTests();
    const pool = getPool();
    const stalled = vi.spyOn(pool, 'query').mockImplementation((() => new Promise(() => {})) as never);
    try {
      const started = performance.now();
      const response = await metricsRoute.GET(scrapeRequest(`Bearer ${TOKEN}`));
      expect(response.status).toBe(200);
      expect(performance.now() - started).toBeLessThan(2_000);
      const exposition = parsePrometheusText(await response.text());
      expect(sampleValue(exposition, 'wgs_database_up')).toBe(0);
      expect(sampleValue(exposition, 'wgs_db_pool_connections', { pool: 'main', state: 'total' })).toBeGreaterThanOrEqual(0);
    } finally {
      stalled.mockRestore();
      delete process.env.READINESS_TIMEOUT_MS;
    }
    const again = parsePrometheusText(await (await metricsRoute.GET(scrapeRequest(`Bearer ${TOKEN}`))).text());
    expect(sampleValue(again, 'wgs_database_up')).toBe(1);
  });

  it('is 401 without the token or with another one', async () => {
    process.env.METRICS_TOKEN = TOKEN;
    resetConfigForTests();
    for (const header of [undefined, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer ']) {
      const response = await metricsRoute.GET(scrapeRequest(header));
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await response.text()).not.toContain('wgs_');
    }
  });

  it('answers Prometheus text with the requests, units, holds, jobs, pools, event-loop lag and process metrics', async () => {
    process.env.METRICS_TOKEN = TOKEN;
    resetConfigForTests();
    const key = await createTestKey({ quota: 2 });
    for (let i = 0; i < 2; i++) expect((await call(api, TEXT, { input: 'hi' }, { key: key.key })).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await call(api, TEXT, { input: 'hi' }, { key: key.key })).status).toBe(402);

    const response = await metricsRoute.GET(scrapeRequest(`Bearer ${TOKEN}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const exposition = parsePrometheusText(await response.text());

    const requests = { route: TEXT, method: 'POST' };
    expect(
      sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...requests, status: '200', code: '' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sampleValue(exposition, 'wgs_http_request_duration_seconds_count', { ...requests, status: '402', code: 'quota_exhausted' }),
    ).toBeGreaterThanOrEqual(3);
    expect(exposition.types.get('wgs_http_request_duration_seconds')).toBe('histogram');
    expect(sampleValue(exposition, 'wgs_units_charged_total', { package: key.slug, operation: 'text.generate' })).toBe(2);
    expect(
      sampleValue(exposition, 'wgs_provider_call_duration_seconds_count', { provider: 'local', model: 'local', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(2);
    expect(sampleValue(exposition, 'wgs_holds_open')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(exposition, 'wgs_video_jobs', { state: 'submitted' })).toBeGreaterThanOrEqual(0);
    expect(sampleValue(exposition, 'wgs_video_job_queue_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(exposition, 'wgs_db_pool_connections', { pool: 'main', state: 'total' })).toBeGreaterThan(0);
    expect(exposition.types.get('wgs_provider_fallbacks_total')).toBe('counter');
    expect(exposition.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(exposition.types.get('process_cpu_seconds_total')).toBe('counter');
    expect(exposition.types.get('process_resident_memory_bytes')).toBe('gauge');
  });
});

describe('GET /metrics on METRICS_PORT', () => {
  it('serves the same registry without a token, and nothing else', async () => {
    const port = await freePort();
    const server = await startMetricsServer(port, '127.0.0.1');
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      const exposition = parsePrometheusText(await response.text());
      expect(exposition.types.get('wgs_http_request_duration_seconds')).toBe('histogram');
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: 'POST' })).status).toBe(404);
      // A second one on its port names the setting (it said `listen EADDRINUSE`).
      await expect(startMetricsServer(port, '127.0.0.1')).rejects.toThrow(`METRICS_PORT ${port} is in use by another process`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('METRICS_PORT on an address other than loopback', () => {
  it('does not start without METRICS_TOKEN', async () => {
    const port = await freePort();
    await expect(startMetricsServer(port, '0.0.0.0')).rejects.toThrow(/needs METRICS_TOKEN/);
    // Nothing listens: the port is still free to take.
    const server = createServer().listen(port, '127.0.0.1');
    await once(server, 'listening');
    await new Promise((resolve) => server.close(resolve));
  });

  it('serves only the bearer of METRICS_TOKEN', async () => {
    const port = await freePort();
    const token = 'metrics-port-token-0123456789';
    const server = await startMetricsServer(port, '0.0.0.0', token);
    try {
      const refused = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(
        (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status,
      ).toBe(401);
      const served = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(served.status).toBe(200);
      expect(parsePrometheusText(await served.text()).types.get('wgs_http_request_duration_seconds')).toBe('histogram');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('tells loopback addresses from others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.5', 'example.com', '128.0.0.1']) expect(isLoopbackHost(host), host).toBe(false);
  });
});
