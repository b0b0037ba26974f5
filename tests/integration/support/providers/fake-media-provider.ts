import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for an OpenAI-compatible images and speech API on 127.0.0.1, for tests: it answers
// POST /v1/images/generations with `image` as b64_json and POST /v1/audio/speech with `speech`,
// whatever was asked, so a test can make it return the wrong format or no media at all.

export interface FakeMediaProvider {
  baseUrl: string;
  image: Buffer;
  speech: Buffer;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeMediaProvider(): Promise<FakeMediaProvider> {
  const fake = { image: Buffer.alloc(0), speech: Buffer.alloc(0), requests: [] as string[] };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      fake.requests.push(`${req.method} ${path}`);
      if (req.method === 'POST' && path === '/v1/images/generations') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: fake.image.toString('base64') }] }));
      } else if (req.method === 'POST' && path === '/v1/audio/speech') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(fake.speech.length) });
        res.end(fake.speech);
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'not found' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  });
}
