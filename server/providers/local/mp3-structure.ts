// The structure check of an MP3 upload, beyond its magic bytes: after the ID3v2 tag (whose size
// the file itself states, and which may run past the 4,100 bytes the sniffer reads) there must be
// MPEG audio frames, two in a row, near the start of the audio. An "MP3" whose tag hides
// something else (another container a decoder would probe) is refused at complete.

/** How many bytes after the tag may come before the first frame (padding some encoders write). */
const MAX_LEAD_BYTES = 1024;
/** The longest MPEG audio frame (Layer II/III, 384 kbit/s at 8 kHz, MPEG 2.5: 2,881 bytes) twice, plus a header. */
export const MP3_WINDOW_BYTES = MAX_LEAD_BYTES + 2 * 2881 + 4;

const BITRATES_KBPS: Record<string, number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** Where the audio starts: after an ID3v2 tag (header, stated size, optional footer), else 0; undefined while unknown. */
export function mp3AudioStart(head: Buffer): number | undefined {
  if (head.length < 10) return undefined;
  if (head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7) | (head[9]! & 0x7f);
  const footer = head[5]! & 0x10 ? 10 : 0;
  return 10 + size + footer;
}

/** The length of the MPEG audio frame whose header starts at `offset`, or undefined when there is no valid header. */
export function mpegFrameLength(bytes: Buffer, offset: number): number | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const [b0, b1, b2] = [bytes[offset]!, bytes[offset + 1]!, bytes[offset + 2]!];
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const version = (b1 >> 3) & 3; // 3: MPEG 1, 2: MPEG 2, 0: MPEG 2.5, 1: reserved
  const layer = 4 - ((b1 >> 1) & 3); // 1, 2 or 3; 4: reserved
  const bitrateIndex = b2 >> 4;
  const rateIndex = (b2 >> 2) & 3;
  if (version === 1 || layer === 4 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined;
  const bitrate = BITRATES_KBPS[`${version === 3 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000;
  const sampleRate = SAMPLE_RATES[version]![rateIndex]!;
  const padding = (b2 >> 1) & 1;
  if (layer === 1) return (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  const perFrame = layer === 3 && version !== 3 ? 72 : 144;
  return Math.floor((perFrame * bitrate) / sampleRate) + padding;
}

/** Whether `window` (the bytes from the audio's start on) begins, within MAX_LEAD_BYTES, with two consecutive frames. */
export function hasMpegFrames(window: Buffer): boolean {
  for (let offset = 0; offset <= MAX_LEAD_BYTES && offset + 4 <= window.length; offset++) {
    const length = mpegFrameLength(window, offset);
    if (length !== undefined && mpegFrameLength(window, offset + length) !== undefined) return true;
  }
  return false;
}

/** Collects, from a stream of chunks, the bytes hasMpegFrames needs. */
export class Mp3StructureProbe {
  private head = Buffer.alloc(0);
  private start: number | undefined;
  private readonly parts: Buffer[] = [];
  private collected = 0;
  private position = 0;

  push(chunk: Buffer): void {
    if (this.start === undefined) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, Math.max(0, 10 - this.head.length))]);
      this.start = mp3AudioStart(this.head);
    }
    if (this.start !== undefined && this.collected < MP3_WINDOW_BYTES) {
      const from = Math.max(this.start - this.position, 0);
      const part = chunk.subarray(from, from + MP3_WINDOW_BYTES - this.collected);
      if (from < chunk.length && part.length > 0) {
        this.parts.push(Buffer.from(part));
        this.collected += part.length;
      }
    }
    this.position += chunk.length;
  }

  valid(): boolean {
    return hasMpegFrames(Buffer.concat(this.parts));
  }
}

/** hasMpegFrames of a whole file in memory (a file sent with the call itself). */
export function mp3FramesFollowTag(bytes: Buffer): boolean {
  const probe = new Mp3StructureProbe();
  probe.push(bytes);
  return probe.valid();
}
