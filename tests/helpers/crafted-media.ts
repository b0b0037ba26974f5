import { synthesizeSpeech } from '@/server/providers/local/speech';

/** An ID3v2.4 tag whose header states `size` bytes of (empty) frames, followed by them. */
export function id3Tag(size: number): Buffer {
  const header = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  return Buffer.concat([header, Buffer.alloc(size)]);
}

/**
 * The attack of issue 28: an "MP3" whose ID3 tag runs past the 4,100 bytes the magic-byte check
 * reads, hiding another container (here a WAV file) that a probing decoder would read instead.
 */
export async function id3WrappedWav(): Promise<Buffer> {
  const wav = (await synthesizeSpeech({ text: 'Not an MP3 at all.', format: 'wav' })).bytes;
  return Buffer.concat([id3Tag(8000), wav]);
}

/** A real MP3 behind a large ID3 tag (album art does this): must stay accepted. */
export async function mp3WithLargeTag(): Promise<Buffer> {
  const mp3 = (await synthesizeSpeech({ text: 'A real MP3 with a large tag.', format: 'mp3' })).bytes;
  return Buffer.concat([id3Tag(6000), mp3]);
}
