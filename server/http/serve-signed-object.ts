import { Readable } from 'node:stream';
import { ApiError } from '../domain/errors';
import { getObjectStore } from '../storage/get-object-store';
import { verifyObjectUrl } from '../storage/signed-urls';
import { parseRangeHeader } from '../storage/byte-range';
import { newRequestId } from './request-id';
import { signedUrlMethods, type RouteMethods } from './route-methods';
import { baseHeaders, toErrorResponse } from './responses';

/**
 * GET /files/<key>?exp&type&n&sig (served through outputUrlMethods, below): streams a private object
 * to whoever holds a valid, unexpired URL; one byte range of it (206) when asked
 * (storage/byte-range.ts), so that a player can seek.
 */
export async function serveSignedObject(request: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const verified = verifyObjectUrl(new URL(request.url));
    if (!verified.ok) {
      throw new ApiError('not_found', {
        message: verified.reason === 'expired' ? 'This URL has expired.' : 'This URL is not valid.',
      });
    }
    return await objectResponse(verified.key, verified.contentType, requestId, request);
  } catch (error) {
    return toErrorResponse(error, requestId);
  }
}

/**
 * A stored object as an answer, streamed from the store with its length: whole (200), or the one
 * byte range the Range header of `ranged` asks for (206; a GET's). 404 when the store no longer has it.
 */
export async function objectResponse(key: string, contentType: string, requestId: string, ranged?: Request): Promise<Response> {
  // If-Range names a version this service cannot compare (objects carry no validator): the whole object.
  const range = !ranged || ranged.headers.has('if-range') ? undefined : parseRangeHeader(ranged.headers.get('range'));
  const object = await getObjectStore().get(key, range);
  if (!object) throw new ApiError('not_found');
  const part = object.range;
  const headers = baseHeaders(requestId, {
    'Content-Type': contentType,
    'Content-Length': String(part ? part.end - part.start + 1 : object.size),
    ...(ranged ? { 'Accept-Ranges': 'bytes' } : {}),
    ...(part ? { 'Content-Range': `bytes ${part.start}-${part.end}/${object.size}` } : {}),
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': 'inline',
  });
  return new Response(Readable.toWeb(object.body) as ReadableStream, { status: part ? 206 : 200, headers });
}

/** Every method of an output URL: GET and HEAD serve it, the others are 405. */
export const outputUrlMethods: RouteMethods = signedUrlMethods({ GET: serveSignedObject });
