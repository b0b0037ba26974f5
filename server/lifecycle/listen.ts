import type { Server } from 'node:net';

/**
 * Listens on `port` and `host`; a port another process holds fails naming the `setting` that chose
 * it, an address not of this machine naming HOST (Node says only `listen EADDRINUSE` or
 * `getaddrinfo ENOTFOUND`), any other failure as Node says it.
 */
export function listenOn(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => {
      const named = settingAtFault(error, port, host, setting);
      reject(named ? new Error(named, { cause: error }) : error);
    };
    server.once('error', refused);
    server.listen(port, host, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

/** What to say instead of Node's message, when a setting is at fault. */
function settingAtFault(error: NodeJS.ErrnoException, port: number, host: string, setting: string): string | undefined {
  if (error.code === 'EADDRINUSE') return `${setting} ${port} is in use by another process; stop it or set ${setting} to another port`;
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' || error.code === 'EADDRNOTAVAIL') {
    return `HOST ${host} is no address of this machine (${error.code}); set HOST to one of its addresses, 0.0.0.0 or 127.0.0.1`;
  }
  return undefined;
}
