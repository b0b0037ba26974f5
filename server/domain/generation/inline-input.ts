import { fileName } from '../../contract/fields';
import { UPLOAD_MIME_TYPES } from '../../contract/values';
import { mp3FramesFollowTag } from '../../providers/local/mp3-structure';
import { mimeMatchesDeclared, sniffMime, SNIFF_BYTES } from '../../providers/local/sniff-mime';
import { ApiError } from '../errors';
import type { AuthenticatedKey } from '../keys/authenticate-key';

// A file sent with the call itself (the OpenAI-compatible surface's multipart transcription)
// instead of as an upload: checked as an upload is checked when it completes (CONTRACT.md §5) —
// its size against the package's limit (413), its declared type against what the operation takes,
// its magic bytes against that type, and an MP3's frames after its ID3 tag — before anything is
// held or charged.

export interface InlineInput {
  bytes: Buffer;
  mimeType: string;
  filename: string;
  sizeBytes: number;
}

/** The name an upload may have (CONTRACT.md §5's `filename`). */
const INLINE_FILE_NAME = fileName(1, 180);

/** A part that names no type: none, a client's generic octet-stream, or text/plain, what form parsers (as the Fetch standard's) read a missing one as. */
const UNTYPED = new Set(['', 'application/octet-stream', 'text/plain']);

const refused = (path: string, code: string, message: string) => ApiError.validation([{ path, code, message }]);

export async function checkInlineInput(
  key: AuthenticatedKey,
  file: { bytes: Buffer; mimeType: string; filename: string },
  path: string,
  mimePrefixes: readonly string[],
): Promise<InlineInput> {
  if (file.bytes.length > key.maxUploadBytes) {
    throw new ApiError('payload_too_large', {
      message: `${path}: ${file.bytes.length} bytes exceed this key's package upload limit of ${key.maxUploadBytes} bytes.`,
      details: { max_upload_bytes: key.maxUploadBytes },
    });
  }
  if (file.bytes.length === 0) throw refused(path, 'empty_file', `${path}: the file is empty.`);
  // A name an upload may have: it goes on to the engine, a provider's form among them.
  const named = INLINE_FILE_NAME.safeParse(file.filename);
  if (!named.success) throw refused(path, 'invalid_string', `${path}: the file's name ${named.error.issues[0]!.message}.`);
  const sniffed = await sniffMime(file.bytes.subarray(0, SNIFF_BYTES));
  const declared = file.mimeType.split(';')[0]!.trim().toLowerCase();
  const accepted = UPLOAD_MIME_TYPES.filter((type) => mimePrefixes.some((prefix) => type.startsWith(prefix)));
  // A part that names no type of its own (UNTYPED) is taken for what its bytes are, and so is one that names another
  // spelling of an accepted format (audio/wave, audio/mp3) whose bytes are that format; bytes of another are a mismatch.
  const otherSpelling = !(accepted as readonly string[]).includes(declared) && accepted.some((type) => mimeMatchesDeclared(declared, type));
  const mimeType = UNTYPED.has(declared) || (otherSpelling && mimeMatchesDeclared(declared, sniffed)) ? (sniffed ?? declared) : declared;
  if (otherSpelling && mimeType === declared) {
    throw refused(
      path,
      'content_mismatch',
      `${path}: the content is ${sniffed ?? 'not a recognised format'}, not the declared ${declared}.`,
    );
  }
  if (!(accepted as readonly string[]).includes(mimeType)) {
    throw refused(path, 'unsupported_media_type', `${path}: the file's type ${mimeType || '(none)'} is not one of ${accepted.join(', ')}.`);
  }
  if (!mimeMatchesDeclared(mimeType, sniffed)) {
    throw refused(
      path,
      'content_mismatch',
      `${path}: the content is ${sniffed ?? 'not a recognised format'}, not the declared ${mimeType}.`,
    );
  }
  if (mimeMatchesDeclared(mimeType, 'audio/mpeg') && !mp3FramesFollowTag(file.bytes)) {
    throw refused(path, 'content_mismatch', `${path}: the content is not ${mimeType}: no MPEG audio frames follow its ID3 tag.`);
  }
  return { ...file, mimeType, sizeBytes: file.bytes.length };
}
