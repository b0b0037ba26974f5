import { createServer, type AddressInfo, type Server } from 'node:net';

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/**
 * `count` different ports on 127.0.0.1 that were free a moment ago: each is held until all are
 * found. Ports asked for one after the other may be the same one, the first being released before
 * the second is asked for (a product given one for its app and its metrics then fails with EADDRINUSE).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolveServer, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolveServer(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((closed) => server.close(closed))));
  return ports;
}
