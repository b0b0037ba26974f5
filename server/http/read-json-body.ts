import { MAX_CANONICAL_DEPTH, nestsTooDeep } from '../domain/canonical-json';
import { ApiError } from '../domain/errors';
import { findDuplicateMember } from '../contract/duplicate-members';
import { DRAIN_LIMIT_BYTES } from './edge/unread-body';

export const MAX_BODY_BYTES = 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads at most MAX_BODY_BYTES from the stream; a larger body is refused as soon as it shows. A body
 * the connection cut short is the client's doing: 400, never the 503 of a store that is away (its
 * socket errors look alike), so logs and refused counts do not show it as an outage.
 */
export async function readBodyBytes(request: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit)
    throw new ApiError('payload_too_large', { message: 'The request body exceeds 1 MiB.' });
  try {
    // A declared length is what Node's parser lets through, no more: read it whole. Asked for its
    // bytes, the direct path's lazy Request reads the socket itself instead of building a stream.
    if (declared !== null && /^\d+$/.test(declared)) return new Uint8Array(await request.arrayBuffer());
    if (!request.body) return new Uint8Array(0);
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        dropRestOfBody(reader);
        throw new ApiError('payload_too_large', { message: 'The request body exceeds 1 MiB.' });
      }
      chunks.push(value);
    }
    return joined(chunks, total);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError('invalid_request', { message: 'The request body ended before it was complete: the connection closed.' });
  }
}

/**
 * Reads what is left of a refused body and drops it, so that the request ends cleanly and its socket
 * can carry the client's next one. Cancelling the reader instead leaves @hono/node-server's body
 * stream paused, so that its own drain stalls and closes the socket 500 ms after the answer, under
 * the next request of a pooled client that had sent its whole body. A client that stops sending is
 * cut off by npm start's server (`dropUnreadBody`: DRAIN_LIMIT_MS), or else by Node's request
 * timeout, which ends this read too; one that sends more than DRAIN_LIMIT_BYTES is cut off then.
 */
export function dropRestOfBody(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  void (async () => {
    for (let dropped = 0; dropped <= DRAIN_LIMIT_BYTES;) {
      const { done, value } = await reader.read();
      if (done) return;
      dropped += value.byteLength;
    }
    await reader.cancel();
  })().catch(() => {});
}

function joined(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Strict JSON: valid UTF-8, one JSON object, no repeated member names (else 400 invalid_request). */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new ApiError('invalid_request', { message: 'The request body is not valid UTF-8.' });
  }
  // Refused before it is parsed: 1 MiB of `[` took JSON.parse 150 ms (the fingerprint refuses it after).
  if (nestsDeeperThan(bytes, MAX_CANONICAL_DEPTH)) throw nestsTooDeep();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_request', { message: 'The request body is not valid JSON.' });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('invalid_request', { message: 'The request body must be a JSON object.' });
  }
  const duplicate = findDuplicateMember(text);
  if (duplicate !== undefined) {
    throw new ApiError('invalid_request', { message: `The request body repeats the member "${duplicate}".` });
  }
  return value as Record<string, unknown>;
}

/** Whether JSON text (as bytes) opens more than `max` arrays and objects within each other; strings skipped. */
export function nestsDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === 0x22 /* " */) {
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c /* \ */) i++;
    } else if (byte === 0x5b /* [ */ || byte === 0x7b /* { */) {
      if (++depth > max) return true;
    } else if (byte === 0x5d /* ] */ || byte === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}
