import { createHash } from 'node:crypto';
import { ApiError, isApiError } from '../../domain/errors';
import { requireJsonContentType } from '../headers';
import { parseJsonObject, readBodyBytes } from '../read-json-body';
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

/** Room for the form's other fields beside a file of the package's largest upload. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** More parts than any form of OpenAI's API has (a transcription's is about a dozen). */
export const MAX_FORM_PARTS = 64;

/**
 * Refuses a form of more than MAX_FORM_PARTS parts before it is parsed, by counting its boundary
 * delimiters (a native search, stopped at the limit): parsing and walking a body of 100,000 tiny
 * parts held the server's thread for seconds.
 */
function refuseManyParts(bytes: Uint8Array, contentType: string): void {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  if (!boundary) return; // no boundary: the parser refuses the body
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let delimiters = 0;
  for (let at = body.indexOf(delimiter); at !== -1; at = body.indexOf(delimiter, at + delimiter.length)) {
    // Each part follows a delimiter and the last is closed by one more.
    if (++delimiters > MAX_FORM_PARTS + 1) {
      throw new ApiError('invalid_request', { message: `The form has more than ${MAX_FORM_PARTS} parts.` });
    }
  }
}

export async function readMultipartBody(request: Request, maxFileBytes: number): Promise<MultipartBody> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new ApiError('unsupported_media_type', { message: 'Content-Type must be multipart/form-data with the file as a part.' });
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBodyBytes(request, maxFileBytes + FORM_OVERHEAD_BYTES);
  } catch (error) {
    if (!isApiError(error) || error.code !== 'payload_too_large') throw error;
    throw new ApiError('payload_too_large', {
      message: `The file exceeds this key's package upload limit of ${maxFileBytes} bytes.`,
      details: { param: 'file', code: 'payload_too_large' },
    });
  }
  refuseManyParts(bytes, type);
  let form: FormData;
  try {
    form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    throw new ApiError('invalid_request', { message: 'The request body is not a valid multipart/form-data body.' });
  }
  return collectParts(form, maxFileBytes);
}

async function collectParts(form: FormData, maxFileBytes: number): Promise<MultipartBody> {
  const body: MultipartBody = { fields: {}, files: {} };
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      const field = name.endsWith('[]') ? name.slice(0, -2) : name;
      const previous = body.fields[field];
      // A field sent twice (not a list) would mean whichever came last: refused, as a repeated JSON member is.
      if (!name.endsWith('[]') && previous !== undefined) throw refuseParam(name, `${name}: send it once.`, 'invalid_value');
      if (!name.endsWith('[]')) body.fields[field] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else body.fields[field] = [value];
      continue;
    }
    if (body.files[name]) throw refuseParam(name, `${name}: send one file.`, 'invalid_value');
    if (value.size > maxFileBytes) {
      throw new ApiError('payload_too_large', {
        message: `${name}: ${value.size} bytes exceed this key's package upload limit of ${maxFileBytes} bytes.`,
        details: { param: name, code: 'payload_too_large' },
      });
    }
    const mimeType = value.type.split(';')[0]!.trim().toLowerCase();
    body.files[name] = { bytes: Buffer.from(await value.arrayBuffer()), mimeType, filename: value.name || name };
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
