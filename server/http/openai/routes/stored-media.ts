import type { GenerationResult } from '../../../domain/billing/reservation';
import { loadUploadBytes } from '../../../domain/uploads/resolve-input-upload';
import { signObjectUrl, verifyObjectUrl } from '../../../storage/signed-urls';

// A charged media call's stored answer on the OpenAI-compatible surface: the stored object its /v1
// output names (by the signed URL's key), when it was made, and the units it charged. OpenAI answers
// media as bytes, base64 or a URL; each is made from the object whenever the call is answered, the
// first time or on a replay (a URL is signed afresh each time).

export interface StoredMedia {
  created: number;
  key: string;
  mimeType: string;
  units: GenerationResult['usage'];
}

/** The stored answer of a media generation whose /v1 output is `{url, expires_at}`. */
export function storedMedia(result: GenerationResult, created: number): string {
  const { url } = result.output as { url: string };
  const verified = verifyObjectUrl(new URL(url));
  if (!verified.ok) throw new Error('a media output names no stored object');
  return JSON.stringify({ created, key: verified.key, mimeType: verified.contentType, units: result.usage } satisfies StoredMedia);
}

export const readStoredMedia = (stored: string): StoredMedia => JSON.parse(stored) as StoredMedia;

export const mediaBytes = (media: StoredMedia): Promise<Buffer> => loadUploadBytes(media.key);

export const freshUrl = (media: StoredMedia, origin: string): string => signObjectUrl(origin, media.key, media.mimeType).url;
