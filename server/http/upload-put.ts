import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { getPrisma } from '../db/client';
import { ApiError } from '../domain/errors';
import { receiveUploadBytes } from '../domain/uploads/receive-upload-bytes';
import { verifyUploadUrl } from '../storage/upload-urls';
import { newRequestId } from './request-id';
import { jsonResponse, noReferrer, toErrorResponse } from './responses';

type NextContext = { params?: Promise<Record<string, string | string[]>> };

/** PUT /uploads/<uploadId>?exp&sig: the direct upload of the local store; the signed URL is the only credential. */
export async function handleUploadPut(request: Request, next?: NextContext): Promise<Response> {
  const requestId = newRequestId();
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
    const body = request.body ? Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>) : Readable.from([] as Buffer[]);
    const received = await receiveUploadBytes(getPrisma(), uploadId, body, contentLength);
    return noReferrer(jsonResponse(200, received, requestId));
  } catch (error) {
    return noReferrer(toErrorResponse(error, requestId));
  }
}
