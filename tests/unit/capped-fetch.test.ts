import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedFetch } from '@/server/providers/capped-fetch';

// A provider's reply is capped at 16 MiB of JSON whether or not it declares its length: a
// declared length is judged before the body is read, an undeclared one as it streams.

const MiB = 1024 * 1024;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const size = Number(new URL(request.url!, 'http://x').searchParams.get('mib')) * MiB;
    const chunked = request.url!.includes('chunked');
    response.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': size }) });
    const chunk = Buffer.alloc(MiB, 0x20);
    for (let sent = 0; sent < size; sent += MiB) response.write(chunk);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('cappedFetch', () => {
  it('passes a reply within the cap through whole, declared or streamed', async () => {
    expect((await (await cappedFetch(`${base}/?mib=2`)).arrayBuffer()).byteLength).toBe(2 * MiB);
    expect((await (await cappedFetch(`${base}/chunked?mib=2`)).arrayBuffer()).byteLength).toBe(2 * MiB);
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    await expect(cappedFetch(`${base}/?mib=17`)).rejects.toThrow(/larger than/);
  });

  it('cuts off a reply of undeclared length once it passes the cap', async () => {
    const response = await cappedFetch(`${base}/chunked?mib=17`);
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});
