import { z } from 'zod';

// The address a start line names: the one the server listens on, so that a person can open it
// (with HOST=192.0.2.2 the server is not on localhost, and a line saying so sent them there).

/** The URL of a server listening on `host`: localhost for every interface, the address itself otherwise. */
export function listeningUrl(host: string, port: number, path = ''): string {
  // HOST is validated (listenHost below): never blank, never in brackets.
  const everyInterface = host === '0.0.0.0' || host === '::';
  const name = everyInterface ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}${path}`;
}

/** HOST: an IPv4 or IPv6 address, or a host name (letters, digits, hyphens and dots); anything else fails only at listen. */
export const listenHost = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$/,
    'must be an IP address or a host name, such as 0.0.0.0, :: or localhost',
  );
