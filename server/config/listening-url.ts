// The address a start line names: the one the server listens on, so that a person can open it
// (with HOST=192.0.2.2 the server is not on localhost, and a line saying so sent them there).

/** The URL of a server listening on `host`: localhost for every interface, the address itself otherwise. */
export function listeningUrl(host: string, port: number, path = ''): string {
  const everyInterface = host === '' || host === '0.0.0.0' || host === '::' || host === '[::]';
  const name = everyInterface ? 'localhost' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${name}:${port}${path}`;
}
