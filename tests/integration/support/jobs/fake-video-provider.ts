import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for an OpenAI-compatible videos API (create, retrieve, download content) on
// 127.0.0.1, for tests. `fail`: every request answers 500. `hold`: videos stay in_progress
// until `release()`, then complete with the given MP4 bytes.

export interface FakeVideoProvider {
  baseUrl: string;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  release(): void;
  close(): Promise<void>;
}

export async function startFakeVideoProvider(options: { mode: 'fail' } | { mode: 'hold'; video: Buffer }): Promise<FakeVideoProvider> {
  const requests: string[] = [];
  let released = false;
  let next = 0;
  const drain = (req: IncomingMessage) =>
    new Promise<void>((resolve) => {
      req.resume();
      req.on('end', resolve);
    });
  const server: Server = createServer((req, res) => {
    void drain(req).then(() => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      requests.push(`${req.method} ${path}`);
      if (options.mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'fake provider failure (must not reach clients)', type: 'server_error' } }));
        return;
      }
      const video = (id: string) => ({
        id,
        object: 'video',
        model: 'fake-video',
        status: released ? 'completed' : 'in_progress',
        progress: released ? 100 : 10,
        created_at: Math.floor(Date.now() / 1000),
        seconds: '4',
        size: '320x240',
      });
      let match: RegExpMatchArray | null;
      if (req.method === 'POST' && /\/videos$/.test(path)) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(video(`video_${++next}`)));
      } else if (req.method === 'GET' && (match = path.match(/\/videos\/([^/]+)\/content$/))) {
        res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(options.video.length) });
        res.end(options.video);
      } else if (req.method === 'GET' && (match = path.match(/\/videos\/([^/]+)$/))) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(video(match[1]!)));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    release: () => {
      released = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
