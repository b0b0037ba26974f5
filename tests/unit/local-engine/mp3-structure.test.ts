import { describe, expect, it } from 'vitest';
import { sniffMime } from '@/server/providers/local/sniff-mime';
import { hasMpegFrames, mp3AudioStart, Mp3StructureProbe, mpegFrameLength } from '@/server/providers/local/mp3-structure';
import { id3Tag, id3WrappedWav, mp3WithLargeTag } from '../../helpers/crafted-media';

function probe(bytes: Buffer, chunk: number): boolean {
  const structure = new Mp3StructureProbe();
  for (let offset = 0; offset < bytes.length; offset += chunk) structure.push(bytes.subarray(offset, offset + chunk));
  return structure.valid();
}

describe('MP3 structure after the ID3 tag', () => {
  it('the crafted ID3-wrapped WAV passes the magic bytes but not the structure check', async () => {
    const crafted = await id3WrappedWav();
    expect(await sniffMime(crafted.subarray(0, 4100))).toBe('audio/mpeg'); // what the magic bytes alone say
    for (const chunk of [7, 1000, 65_536]) expect(probe(crafted, chunk)).toBe(false);
  });

  it('a real MP3, with or without a large tag, in chunks of any size, passes', async () => {
    const tagged = await mp3WithLargeTag();
    for (const chunk of [3, 1000, 65_536]) expect(probe(tagged, chunk)).toBe(true);
    expect(probe(tagged.subarray(6010), 4096)).toBe(true); // the encoder's own file (its own small tag)
  });

  it('reads the tag size (syncsafe, with a footer) and frame lengths', () => {
    expect(mp3AudioStart(id3Tag(300))).toBe(310);
    const withFooter = id3Tag(300);
    withFooter[5] = 0x10;
    expect(mp3AudioStart(withFooter)).toBe(320);
    expect(mp3AudioStart(Buffer.from([0xff, 0xfb, 0x90, 0x00, 0, 0, 0, 0, 0, 0]))).toBe(0);
    expect(mp3AudioStart(Buffer.from('ID3'))).toBeUndefined();
    // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: 417 bytes, 418 with padding
    expect(mpegFrameLength(Buffer.from([0xff, 0xfb, 0x90, 0x00]), 0)).toBe(417);
    expect(mpegFrameLength(Buffer.from([0xff, 0xfb, 0x92, 0x00]), 0)).toBe(418);
    expect(mpegFrameLength(Buffer.from([0xff, 0xfb, 0xf0, 0x00]), 0)).toBeUndefined(); // bad bitrate index
    expect(hasMpegFrames(Buffer.alloc(5000))).toBe(false);
    const oneFrame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x00]), Buffer.alloc(413)]);
    expect(hasMpegFrames(oneFrame)).toBe(false); // a lone sync is not a stream
    expect(hasMpegFrames(Buffer.concat([oneFrame, oneFrame]))).toBe(true);
  });
});
