import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { ApiError } from '../../domain/errors';
import { newRequestId } from '../request-id';
import { toErrorResponse } from '../responses';
import type { RouteMatch } from './direct-routes';

// `npm start` serves /v1, /healthz and /readyz itself: the handlers the app route files export,
// called with a Fetch Request that @hono/node-server builds from the Node request only as far
// as the handler reads it (no Request, AbortSignal or body stream for what it never touches),
// and their Response written back. Next's router is not entered; `next dev` and Vercel still
// reach the same handlers through the route files.

/** The paths served directly: the API (/v1 and below) and the load balancers' probes. */
const DIRECT_PATH = /^\/(?:v1(?:[/?]|$)|(?:healthz|readyz)\/?(?:\?|$))/;

export function isDirectPath(target: string): boolean {
  return DIRECT_PATH.test(target);
}

export type Router = (method: string, target: string) => RouteMatch | undefined;

/** Serves one request of a direct path; answers are what the route file's handler answers. */
export type DirectDispatch = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The dispatcher over `router`. `headers` are the headers next.config.mjs adds to these paths'
 * answers (frame and referrer policies), set here so that both ways of serving them answer alike.
 */
export function createDirectDispatch(router: Router, headers: readonly [name: string, value: string][]): DirectDispatch {
  const listener = getRequestListener(
    (request: Request, { incoming }: { incoming: { url?: string } }) => {
      const match = router(request.method, incoming.url ?? '/');
      if (!match) return toErrorResponse(new ApiError('not_found'), newRequestId());
      return match.handler(request, { params: Promise.resolve(match.params) });
    },
    {
      // The Request and Response classes stay Node's own: Next serves the rest of this process.
      overrideGlobalObjects: false,
      // HTTP/1.0 needs no Host (the edge lets it through): its URL is then this server's own.
      hostname: 'localhost',
      // A Host that makes no URL: the envelope, as every other refusal of the edge.
      errorHandler: () =>
        toErrorResponse(new ApiError('invalid_request', { message: 'The Host header does not name a valid host.' }), newRequestId()),
    },
  );
  return (req, res) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    void listener(req, res);
  };
}
