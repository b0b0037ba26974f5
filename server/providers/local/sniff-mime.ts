// Magic-byte sniffing for uploads: the declared mime type must match what the bytes are.
import { fileTypeFromBuffer } from 'file-type';

/** How many leading bytes to read before sniffing (file-type's own detection window). */
export const SNIFF_BYTES = 4100;

export const ACCEPTED_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'audio/mpeg',
  'audio/wav',
  'audio/mp4',
  'video/mp4',
  'video/webm',
] as const;
export type AcceptedMimeType = (typeof ACCEPTED_MIME_TYPES)[number];

// file-type names some accepted containers differently: an .m4a is `audio/x-m4a`, an .m4v
// `video/x-m4v`; both are MP4 files.
const SNIFFED_ALIASES: Record<string, AcceptedMimeType> = {
  'audio/x-m4a': 'audio/mp4',
  'video/x-m4v': 'video/mp4',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-wav': 'audio/wav',
};

/** The accepted mime type the bytes really are, or undefined (unknown or not accepted). */
export async function sniffMime(head: Buffer): Promise<AcceptedMimeType | undefined> {
  const detected = await fileTypeFromBuffer(head);
  if (!detected) return undefined;
  const mime = detected.mime.toLowerCase();
  const canonical = SNIFFED_ALIASES[mime] ?? mime;
  return (ACCEPTED_MIME_TYPES as readonly string[]).includes(canonical) ? (canonical as AcceptedMimeType) : undefined;
}

// Names that mean the same file format. WAV has three spellings. MP4 audio and video are one
// container whose brand does not say whether it holds only audio, so either sniffed value
// satisfies either declaration.
const FAMILIES: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/vnd.wave': 'wav',
  'audio/wave': 'wav',
  'audio/mp4': 'mp4',
  'video/mp4': 'mp4',
  'audio/x-m4a': 'mp4',
  'audio/m4a': 'mp4',
  'video/x-m4v': 'mp4',
  'audio/webm': 'webm', // a browser's MediaRecorder names its WebM so
  'video/webm': 'webm',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
};

/** Whether a declared mime type and a sniffed one name the same format. */
export function mimeMatchesDeclared(declared: string, sniffed: string | undefined): boolean {
  if (!sniffed) return false;
  const family = (mime: string) => {
    const bare = mime.split(';')[0]?.trim().toLowerCase() ?? '';
    return FAMILIES[bare] ?? bare;
  };
  const declaredFamily = family(declared);
  return declaredFamily !== '' && declaredFamily === family(sniffed);
}
