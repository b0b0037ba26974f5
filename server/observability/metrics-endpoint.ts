import { timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { getConfig } from '../config';
import { isLoopbackHost } from '../config/loopback-host';
import { scrapeMetrics } from './database-gauges';
import { enableMetrics } from './metrics';
import { listenOn } from '../lifecycle/listen';

// GET /metrics: on METRICS_PORT (open only when bound to loopback; on any other address it needs
// `Authorization: Bearer <METRICS_TOKEN>` too, and does not start without one), and/or on the
// app's port to that bearer; 404 on the app's port without a token set.

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function bearerMatches(header: string | null, token: string): boolean {
  // The scheme is case-insensitive (RFC 9110 §11.1), as /v1 reads it.
  const given = Buffer.from(header && /^bearer /i.test(header) ? header.slice(7).trim() : '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The app's own /metrics route. */
export async function serveMetrics(request: Request): Promise<Response> {
  const token = getConfig().METRICS_TOKEN;
  const headers = { 'Cache-Control': 'no-store', 'Content-Type': 'text/plain; charset=utf-8' };
  if (!token) return new Response('Not Found\n', { status: 404, headers });
  if (!bearerMatches(request.headers.get('authorization'), token)) {
    return new Response('Unauthorized\n', { status: 401, headers: { ...headers, 'WWW-Authenticate': 'Bearer realm="metrics"' } });
  }
  const text = await scrapeMetrics(await enableMetrics());
  return new Response(text, { status: 200, headers: { ...headers, 'Content-Type': CONTENT_TYPE } });
}

/**
 * The listener of METRICS_PORT: /metrics, nothing else. On loopback it is open (a scraper on the
 * same machine); on any other address it serves only the bearer of `token`, and refuses to start
 * without one: process and business figures are not for whoever reaches the port.
 */
export async function startMetricsServer(port: number, host: string, token?: string): Promise<Server> {
  const open = isLoopbackHost(host);
  if (!open && !token) {
    throw new Error(`METRICS_PORT on ${host} (not loopback) needs METRICS_TOKEN: set one, or bind to 127.0.0.1 with HOST`);
  }
  const metrics = await enableMetrics();
  const server = createServer((req, res) => {
    if (req.url?.split('?')[0] !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not Found\n');
      return;
    }
    if (!open && !bearerMatches(req.headers.authorization ?? null, token!)) {
      res
        .writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer realm="metrics"' })
        .end('Unauthorized\n');
      return;
    }
    scrapeMetrics(metrics).then(
      (text) =>
        res.writeHead(200, { 'Content-Type': CONTENT_TYPE, 'Cache-Control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await listenOn(server, port, host, 'METRICS_PORT');
  return server;
}
