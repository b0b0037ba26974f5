import type { Server } from 'node:net';

/**
 * Listens on `port` and `host`; a port another process holds fails naming the `setting` that chose
 * it (Node says only `listen EADDRINUSE`), any other failure as Node says it.
 */
export function listenOn(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`${setting} ${port} is in use by another process; stop it or set ${setting} to another port`)
          : error,
      );
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}
