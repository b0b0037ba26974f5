import { AsyncLocalStorage } from 'node:async_hooks';

// What the server that accepted a request's connection knows of it. `npm start`'s server hands
// it to the API's app as a parameter, and serves Next's paths (sign-in, the portal, /buy, pages)
// inside `servingConnection`, so the handlers Next calls read it at their own door. No header
// carries it: nothing a client sends can stand in for it. Under `next dev`, `next start` and on
// Vercel no server of ours accepts the connection, and there is none (client-address.ts says
// what then stands for the client).

export interface Connection {
  /** The TCP peer: the client, or the nearest proxy in front. */
  peerAddress: string | undefined;
  /** The path and query the request asked for, as the server received it. */
  target: string;
}

const accepted = new AsyncLocalStorage<Connection>();

/** Runs `serve` (Next's request handler) with `connection` as the connection of the request it serves. */
export function servingConnection<T>(connection: Connection, serve: () => T): T {
  return accepted.run(connection, serve);
}

/** The connection of the request being served, when `npm start`'s server accepted it. */
export function acceptedConnection(): Connection | undefined {
  return accepted.getStore();
}
