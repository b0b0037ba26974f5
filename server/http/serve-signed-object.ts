import { Readable } from 'node:stream';
import { ApiError } from '../domain/errors';
import { getObjectStore } from '../storage/get-object-store';
import { verifyObjectUrl } from '../storage/signed-urls';
import { newRequestId } from './request-id';
import { baseHeaders, noReferrer, toErrorResponse } from './responses';

/** GET /files/<key>?exp&type&n&sig: streams a private object to whoever holds a valid, unexpired URL. */
export async function serveSignedObject(request: Request): Promise<Response> {
  const requestId = newRequestId();
  try {
    const verified = verifyObjectUrl(new URL(request.url));
    if (!verified.ok) {
      throw new ApiError('not_found', {
        message: verified.reason === 'expired' ? 'This URL has expired.' : 'This URL is not valid.',
      });
    }
    const object = await getObjectStore().get(verified.key);
    if (!object) throw new ApiError('not_found');
    const headers = baseHeaders(requestId, {
      'Content-Type': verified.contentType,
      'Content-Length': String(object.size),
      'X-Content-Type-Options': 'nosniff',
      'Content-Disposition': 'inline',
    });
    return noReferrer(new Response(Readable.toWeb(object.body) as ReadableStream, { status: 200, headers }));
  } catch (error) {
    return noReferrer(toErrorResponse(error, requestId));
  }
}
