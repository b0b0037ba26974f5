import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { Connection } from '../../auth/connection';
import { ApiError } from '../../domain/errors';
import { newRequestId } from '../request-id';
import { toErrorResponse } from '../responses';
import { awaitsContinue, continueOnFirstRead } from './refused-body';
import { dropUnreadBody } from './unread-body';

// `npm start` serves the API's surfaces and the probes itself: the service's app (server/surfaces)
// gets a Fetch Request that @hono/node-server builds from the Node request only as far as the
// app reads it (no Request, AbortSignal or body stream for what it never touches), with the
// connection as a parameter, and its Response is written back. Next's router is not entered;
// `next dev` and Vercel reach the same app through its route files.

/** The app as the edge calls it: a Fetch handler that takes the connection beside the request. */
export interface ConnectionAwareApp {
  fetch(request: Request, env: { connection: Connection }): Response | Promise<Response>;
}

/** Serves one request of the app's paths. */
export type DirectDispatch = (req: IncomingMessage, res: ServerResponse) => void;

export function createDirectDispatch(app: ConnectionAwareApp): DirectDispatch {
  const listener = getRequestListener(
    (request: Request, env: unknown) => {
      const { incoming } = env as HttpBindings; // an HTTP/1.1 server's
      return app.fetch(request, { connection: { peerAddress: incoming.socket.remoteAddress, target: incoming.url ?? '/' } });
    },
    {
      // The Request and Response classes stay Node's own: Next serves the rest of this process.
      overrideGlobalObjects: false,
      // The rest of a body left unread is dropped by dropUnreadBody, with limits of its own.
      autoCleanupIncoming: false,
      // HTTP/1.0 needs no Host (the edge lets it through): its URL is then this server's own.
      hostname: 'localhost',
      // A Host that makes no URL: the envelope, as every other refusal of the edge.
      errorHandler: () =>
        toErrorResponse(new ApiError('invalid_request', { message: 'The Host header does not name a valid host.' }), newRequestId()),
    },
  );
  return (req, res) => {
    continueOnFirstRead(req, res);
    // Before 'finish': there Node drops a body nobody began to read itself, reading all of it, however large.
    // A body never invited never comes (the connection closes after the answer).
    res.once('prefinish', () => awaitsContinue(req) || dropUnreadBody(req));
    void listener(req, res);
  };
}
