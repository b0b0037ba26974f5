import { ProviderUnavailableError, type MediaResult } from './engine';
import { loadSharp } from './load-sharp';
import { mimeMatchesDeclared, sniffMime, SNIFF_BYTES, type AcceptedMimeType } from './local/sniff-mime';

// A provider's media is checked before anyone is charged for it: its magic bytes must be the
// format that was asked for. An image in another image format is converted (some servers ignore
// output_format); anything else is a failed call (503, units released), never a file of another
// format sold under the name asked for. (A file cut short after its header is not detected.)

const SHARP_FORMATS = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' } as const;

export async function checkedMedia(bytes: Buffer, mimeType: AcceptedMimeType): Promise<MediaResult> {
  const sniffed = await sniffMime(bytes.subarray(0, SNIFF_BYTES));
  if (mimeMatchesDeclared(mimeType, sniffed)) return { bytes, mimeType };
  const target = SHARP_FORMATS[mimeType as keyof typeof SHARP_FORMATS];
  if (target && sniffed && sniffed in SHARP_FORMATS) {
    try {
      const sharp = await loadSharp();
      return { bytes: await sharp(bytes).toFormat(target).toBuffer(), mimeType };
    } catch {
      // undecodable despite its magic bytes: refused below
    }
  }
  // Said in the log by the engine's call, as every failure of its provider.
  throw new ProviderUnavailableError(`its answer is ${sniffed ?? 'bytes of no recognised format'}, not ${mimeType}`, 5, {
    kind: 'malformed',
  });
}
