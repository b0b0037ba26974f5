import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createDatabase,
  ensureBuild,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';

// MAX_CONNECTIONS: the real `npm start` holds at most that many open connections; the excess is
// closed at accept, before a byte of it is read, and the held ones are served as usual.

const CAP = 4;
let database: TestDatabase;
let product: Product;
const sockets: Socket[] = [];

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase(inject('databaseUrl'), 'wgs_conncap');
  await useDatabaseInThisProcess(database.url);
  product = await startProduct({ databaseUrl: database.url, env: { MAX_CONNECTIONS: String(CAP) } });
}, 240_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  killAllProducts();
  await useDatabaseInThisProcess(inject('databaseUrl'));
  await database?.drop().catch(() => {});
});

/** Opens a keep-alive connection and asks for /healthz: 'served' when a status line comes back, 'closed' when it is closed first. */
function openAndAsk(): Promise<'served' | 'closed'> {
  return new Promise((resolve) => {
    const socket = connect(product.port, '127.0.0.1');
    sockets.push(socket);
    let received = '';
    socket.on('connect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n'));
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (received.startsWith('HTTP/1.1 200')) resolve('served');
    });
    socket.on('error', () => resolve('closed'));
    socket.on('close', () => resolve(received.startsWith('HTTP/1.1 200') ? 'served' : 'closed'));
  });
}

describe('MAX_CONNECTIONS', () => {
  it('refuses connections past the cap at accept; a freed place is taken again', async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < CAP + 2; i++) outcomes.push(await openAndAsk());
    const served = outcomes.filter((outcome) => outcome === 'served').length;
    // The test's readiness poll (fetch, keep-alive) may still hold places of the cap, more than
    // one when a slow machine made a poll give up and start another: at least one is left here.
    expect(served).toBeGreaterThanOrEqual(1);
    expect(served).toBeLessThanOrEqual(CAP);
    expect(outcomes.slice(0, served).every((outcome) => outcome === 'served')).toBe(true);
    expect(outcomes.slice(served).every((outcome) => outcome === 'closed')).toBe(true);

    // One held connection closes: a new one is served (once the server has seen the close).
    sockets.find((socket) => !socket.destroyed)!.destroy();
    let again: 'served' | 'closed' = 'closed';
    for (let attempt = 0; attempt < 50 && again === 'closed'; attempt++) {
      again = await openAndAsk();
      if (again === 'closed') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(again).toBe('served');
  });
});
