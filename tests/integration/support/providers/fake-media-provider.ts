import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in for an OpenAI-compatible images, speech and transcription API on 127.0.0.1, for
// tests: it answers POST /v1/images/generations and /v1/images/edits with `image` as b64_json,
// POST /v1/audio/speech with `speech` and POST /v1/audio/transcriptions with `transcript`,
// whatever was asked, so a test can make it return the wrong format or malformed data.

export interface FakeMediaProvider {
  baseUrl: string;
  image: Buffer;
  speech: Buffer;
  transcript: unknown;
  /** Requests seen, as "METHOD /path". */
  requests: string[];
  /** The raw body of the last request to each path. */
  bodies: Map<string, Buffer>;
  close(): Promise<void>;
}

export async function startFakeMediaProvider(): Promise<FakeMediaProvider> {
  const fake = {
    image: Buffer.alloc(0),
    speech: Buffer.alloc(0),
    transcript: {} as unknown,
    requests: [] as string[],
    bodies: new Map<string, Buffer>(),
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      fake.requests.push(`${req.method} ${path}`);
      fake.bodies.set(path, Buffer.concat(chunks));
      if (req.method === 'POST' && (path === '/v1/images/generations' || path === '/v1/images/edits')) {
        json(res, 200, { created: Math.floor(Date.now() / 1000), data: [{ b64_json: fake.image.toString('base64') }] });
      } else if (req.method === 'POST' && path === '/v1/audio/speech') {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(fake.speech.length) });
        res.end(fake.speech);
      } else if (req.method === 'POST' && path === '/v1/audio/transcriptions') {
        json(res, 200, fake.transcript);
      } else {
        json(res, 404, { error: { message: 'not found' } });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
