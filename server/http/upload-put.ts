import { Readable } from 'node:stream';
import { getPrisma } from '../db/client';
import { ApiError } from '../domain/errors';
import { receiveUploadBytes } from '../domain/uploads/receive-upload-bytes';
import { verifyUploadUrl } from '../storage/upload-urls';
import { dropRestOfBody } from './read-json-body';
import { newRequestId } from './request-id';
import { signedUrlMethods, type RouteMethods } from './route-methods';
import { jsonResponse, toErrorResponse } from './responses';

type NextContext = { params?: Promise<Record<string, string | string[]>> };

/**
 * The request's body as a Node stream whose destruction (a refused upload: too large, its key
 * revoked) reads the rest and drops it instead of cancelling it: a cancelled body left the
 * connection unread behind the 413, and the client's next request on it waited out the server's
 * timeout (65 s, outside audit).
 */
function bodyReadable(body: ReadableStream<Uint8Array>): Readable {
  const reader = body.getReader();
  return new Readable({
    read() {
      reader.read().then(
        ({ done, value }) => this.push(done ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
        (error: unknown) => this.destroy(error as Error),
      );
    },
    destroy(error, callback) {
      dropRestOfBody(reader);
      callback(error);
    },
  });
}

/** PUT /uploads/<uploadId>?exp&sig: the direct upload of the local store; the signed URL is the only credential. */
async function handleUploadPut(request: Request, next?: NextContext): Promise<Response> {
  const requestId = newRequestId();
  let body: Readable | undefined;
  try {
    const raw = (await next?.params)?.uploadId;
    const uploadId = Array.isArray(raw) ? raw.join('/') : (raw ?? '');
    const verified = verifyUploadUrl(uploadId, new URL(request.url));
    if (!verified.ok) {
      throw new ApiError('not_found', {
        message: verified.reason === 'expired' ? 'This upload URL has expired.' : 'This upload URL is not valid.',
      });
    }
    const lengthHeader = request.headers.get('content-length');
    const contentLength = lengthHeader && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
    const openBody = () => (body = request.body ? bodyReadable(request.body) : Readable.from([] as Buffer[]));
    const received = await receiveUploadBytes(getPrisma(), uploadId, openBody, contentLength);
    return jsonResponse(200, received, requestId);
  } catch (error) {
    // Every refusal (an upload gone or finished, a database away, not only the ones that read part
    // of the body) drops what is left of it: a body taken and left unread stalls its connection.
    body?.destroy();
    return toErrorResponse(error, requestId);
  }
}

/** Every method of an upload URL: PUT takes the bytes, the others are 405. */
export const uploadUrlMethods: RouteMethods = signedUrlMethods({ PUT: handleUploadPut });
