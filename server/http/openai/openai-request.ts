import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { ApiError } from '../../domain/errors';
import { refuseContentCoding, requireJsonContentType } from '../headers';
import { dropRestOfBody, parseJsonObject, readBodyBytes } from '../read-json-body';
import { refuseParam } from './openai-errors';

// The bodies the OpenAI-compatible surface reads: strict JSON as on /v1 (1 MiB, valid UTF-8, no
// repeated member), or multipart/form-data for the routes that take a file (transcriptions,
// videos), read up to the key's package upload limit and refused past it as soon as it shows.

/** A multipart body: its fields (a repeated field, `timestamp_granularities[]`, as a list) and its files. */
export interface MultipartBody {
  fields: Record<string, string | string[]>;
  files: Record<string, InlineFile>;
}

/** A file sent inline: its bytes, the type and name its part declared. */
export interface InlineFile {
  bytes: Buffer;
  mimeType: string;
  filename: string;
}

export async function readJsonBody(request: Request): Promise<Record<string, unknown>> {
  requireJsonContentType(request);
  return parseJsonObject(await readBodyBytes(request));
}

/** More parts than any form of OpenAI's API has (a transcription's is about a dozen). */
export const MAX_FORM_PARTS = 64;

/** The most a field (a part that is not a file) may hold: a prompt of 32,000 characters of 4 bytes, and room. */
export const MAX_FIELD_BYTES = 128 * 1024;

/** Room for the form's other fields beside a file of the package's largest upload: one of the largest, and more. */
const FORM_OVERHEAD_BYTES = 2 * MAX_FIELD_BYTES;

/** A field's bytes as text: strict UTF-8, as a JSON body's (CONTRACT.md §1), a BOM kept as a character. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const invalidForm = () => new ApiError('invalid_request', { message: 'The request body is not a valid multipart/form-data body.' });

/** A part as it came: a field's text, or a file (its bytes once it has ended). */
type Part = { name: string; text: string } | { name: string; file: InlineFile | undefined };

/** `takes`: what the route's Content-Type may be, for its refusal's sentence. */
export async function readMultipartBody(
  request: Request,
  maxFileBytes: number,
  takes = 'multipart/form-data with the file as a part',
): Promise<MultipartBody> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) throw new ApiError('unsupported_media_type', { message: `Content-Type must be ${takes}.` });
  refuseContentCoding(request); // as a JSON body's: after its type, before a byte is read
  const limit = maxFileBytes + FORM_OVERHEAD_BYTES;
  const tooLarge = new ApiError('payload_too_large', {
    message: `The form exceeds this key's package upload limit of ${maxFileBytes} bytes for its file, and ${FORM_OVERHEAD_BYTES / 1024} KiB for its other fields.`,
    details: { param: 'file', code: 'payload_too_large' },
  });
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge;
  return collectParts(await parseParts(request, type, limit, tooLarge), maxFileBytes);
}

function formParser(contentType: string, limit: number): BusboyInstance {
  try {
    return new Busboy({
      headers: { 'content-type': contentType },
      // Every part's bytes as they came: a field is read as UTF-8 here, as the Fetch standard reads
      // a form, whatever charset its part names (busboy would apply it).
      isPartAFile: () => true,
      preservePath: true, // a file's name keeps its folders, as the Fetch standard's does
      limits: { parts: MAX_FORM_PARTS, fieldNameSize: FORM_OVERHEAD_BYTES, fileSize: limit },
    });
  } catch {
    throw invalidForm(); // no boundary
  }
}

/** A field's text, or undefined when its bytes are not UTF-8. */
function fieldText(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The body's next chunk, undefined at its end; a connection closed first is said so. */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  try {
    const read = await reader?.read();
    return read && !read.done ? read.value : undefined;
  } catch {
    throw new ApiError('invalid_request', { message: 'The request body ended before it was complete: the connection closed.' });
  }
}

/**
 * Parses the body as it arrives (a streaming parser, @fastify/busboy), keeping each part's bytes
 * once: read whole and then parsed, a 60 MB file took 350 MB more RSS. Stops at the first part
 * past MAX_FORM_PARTS (100,000 tiny parts held the thread for a minute) and at `limit` bytes. A
 * part that is not a form field (no `Content-Disposition: form-data`) is skipped by the parser.
 */
async function parseParts(request: Request, contentType: string, limit: number, tooLarge: ApiError): Promise<Part[]> {
  const parser = formParser(contentType, limit);
  const parts: Part[] = [];
  let failure: ApiError | undefined;
  parser.on('file', (name: string | undefined, stream, filename: string | undefined, _encoding, mimeType) => {
    stream.on('error', () => (failure ??= invalidForm())); // a part cut short: the parser says so too
    if (!name) {
      failure ??= invalidForm(); // a part without a name, or an empty one: busboy passes it on as if it had one
      stream.resume();
      return;
    }
    const part: Part = { name, file: undefined };
    parts.push(part);
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (filename === undefined && size > MAX_FIELD_BYTES) {
        failure ??= refuseParam(name, `${name}: a field holds at most ${MAX_FIELD_BYTES} bytes.`, 'invalid_value');
      }
      chunks.push(chunk);
    });
    stream.on('end', () => {
      const bytes = Buffer.concat(chunks);
      if (filename !== undefined) return void (part.file = { bytes, mimeType, filename: filename || name });
      const text = fieldText(bytes);
      if (text === undefined) failure ??= refuseParam(name, `${name} is not valid UTF-8.`, 'invalid_value');
      else parts[parts.indexOf(part)] = { name, text };
    });
  });
  parser.on('partsLimit', () => {
    failure ??= new ApiError('invalid_request', { message: `The form has more than ${MAX_FORM_PARTS} parts.` });
  });
  const finished = new Promise<void>((resolve) => {
    parser.once('finish', resolve);
    parser.on('error', () => resolve(void (failure ??= invalidForm())));
  });
  const reader = request.body?.getReader();
  let received = 0;
  try {
    // A failure stops the reading at once, not at the next chunk (which a paused client may never send).
    for (let chunk = await nextChunk(reader); chunk; chunk = failure ? undefined : await nextChunk(reader)) {
      received += chunk.byteLength;
      if (received > limit) throw tooLarge;
      // A parse error is noted by the parser's 'error' (failure); waiting on it ends then too.
      if (!parser.write(chunk) && !failure) await once(parser, 'drain').catch(() => {});
    }
  } finally {
    if (reader && (failure || received > limit)) dropRestOfBody(reader);
  }
  if (!failure) parser.end();
  await (failure ? undefined : finished);
  if (failure) throw failure;
  return parts;
}

function collectParts(parts: readonly Part[], maxFileBytes: number): MultipartBody {
  const body: MultipartBody = { fields: {}, files: {} };
  for (const part of parts) {
    const { name } = part;
    if ('text' in part) {
      const field = name.endsWith('[]') ? name.slice(0, -2) : name;
      const previous = body.fields[field];
      // A field sent twice (not a list) would mean whichever came last: refused, as a repeated JSON member is.
      if (!name.endsWith('[]') && previous !== undefined) throw refuseParam(name, `${name}: send it once.`, 'invalid_value');
      if (!name.endsWith('[]')) body.fields[field] = part.text;
      else if (Array.isArray(previous)) previous.push(part.text);
      else body.fields[field] = [part.text];
      continue;
    }
    if (body.files[name]) throw refuseParam(name, `${name}: send one file.`, 'invalid_value');
    const file = part.file!;
    if (file.bytes.length > maxFileBytes) {
      throw new ApiError('payload_too_large', {
        message: `${name}: ${file.bytes.length} bytes exceed this key's package upload limit of ${maxFileBytes} bytes.`,
        details: { param: name, code: 'payload_too_large' },
      });
    }
    body.files[name] = file;
  }
  return body;
}

/** What a multipart body's fingerprint hashes: its fields, and each file by its digest, type and name. */
export function multipartFingerprintBody(body: MultipartBody): Record<string, unknown> {
  const files = Object.fromEntries(
    Object.entries(body.files).map(([name, file]) => [
      name,
      { sha256: createHash('sha256').update(file.bytes).digest('hex'), mime_type: file.mimeType, filename: file.filename },
    ]),
  );
  return { fields: body.fields, files };
}
