import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import {
  createDatabase,
  ensureBuild,
  freePort,
  killAllProducts,
  startProduct,
  useDatabaseInThisProcess,
  type Product,
  type TestDatabase,
} from './support/product/product';
import { ownAddresses } from './support/product/addresses';

// MAX_CONNECTIONS: the real `npm start` holds at most that many open connections, whoever opens
// them (here a client at this machine's non-loopback address, as on the network); the excess is
// closed at accept, before a byte of it is read, and the held ones are served as usual. And the
// start's own warm-up never closes a client's connection: a load balancer's health check that
// arrives while Next warms up keeps its keep-alive connection.

/** Where the cap's clients connect from and to: this machine's address besides loopback. */
const CLIENT_ADDRESS = ownAddresses().ipv4;

const CAP = 4;
let database: TestDatabase;
let product: Product;
const sockets: Socket[] = [];

beforeAll(async () => {
  ensureBuild();
  database = await createDatabase('wgs_conncap');
  await useDatabaseInThisProcess(database.url);
  product = await startProduct({ databaseUrl: database.url, env: { MAX_CONNECTIONS: String(CAP), HOST: '0.0.0.0' } });
}, 240_000);

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  killAllProducts();
  await useDatabaseInThisProcess(testDatabaseUrl());
  await database?.drop().catch(() => {});
});

/** Opens a keep-alive connection and asks for /healthz: 'served' when it is answered 200, 'closed' when it is closed first. */
async function openAndAsk(): Promise<'served' | 'closed'> {
  const socket = await openConnection(product.port, CLIENT_ADDRESS);
  if (!socket) return 'closed';
  sockets.push(socket);
  return (await askOn(socket)) === 'HTTP/1.1 200 OK' ? 'served' : 'closed';
}

describe('MAX_CONNECTIONS', () => {
  it('refuses connections past the cap at accept; a freed place is taken again', async () => {
    // The start's own warm-up requests (a connection of its own each) are over once it says it serves.
    while (!product.output().includes('serving on')) await new Promise((resolve) => setTimeout(resolve, 100));
    const outcomes: string[] = [];
    for (let i = 0; i < CAP + 2; i++) outcomes.push(await openAndAsk());
    const served = outcomes.filter((outcome) => outcome === 'served').length;
    // Nothing else holds a place: the start's readiness poll (startProduct) and its warm-up each
    // used a connection of their own that the server closed once it answered.
    expect(served).toBe(CAP);
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

/** Asks for /healthz on `socket` (keep-alive) and resolves with the status line, or 'closed'. */
function askOn(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readyState !== 'open') return resolve('closed');
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(received);
      if (end >= 0 && length && received.length >= end + 4 + Number(length[1])) finish(received.split('\r\n')[0]!);
    };
    const onGone = () => finish('closed');
    const timer = setTimeout(() => finish(`no answer in 20 s: ${JSON.stringify(received)}`), 20_000);
    const finish = (outcome: string) => {
      clearTimeout(timer);
      socket.off('data', onData).off('close', onGone).off('error', onGone);
      resolve(outcome);
    };
    socket.on('data', onData).once('close', onGone).once('error', onGone);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
  });
}

/** A connection to `host`:`port`, or undefined when none could be made. */
function openConnection(port: number, host = '127.0.0.1'): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const attempt = connect(port, host);
    attempt.once('connect', () => resolve(attempt));
    attempt.once('error', () => resolve(undefined));
  });
}

/** A connection to `port` as soon as something listens there (polled every 10 ms until `until()`). */
async function connectWhenListening(port: number, until: () => boolean): Promise<Socket | undefined> {
  while (!until()) {
    const socket = await openConnection(port);
    if (socket) return socket;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
}

describe('the start warms up without touching clients', () => {
  it('a health check answered while the instance warms up keeps its connection: the next request on it is served', async () => {
    const port = await freePort();
    let started = false;
    const starting = startProduct({ databaseUrl: database.url, port }).then((product) => {
      started = true;
      return product;
    });
    const early = await connectWhenListening(port, () => started);
    expect(early, 'the poll never connected before the start finished').toBeDefined();
    sockets.push(early!);
    // Asked at once, as the server starts listening: answered while the start still warms up.
    expect(await askOn(early!)).toBe('HTTP/1.1 200 OK');
    await starting;
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the warm-up is over by now
    expect(await askOn(early!)).toBe('HTTP/1.1 200 OK');
  }, 240_000);
});
