import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { MediaDecodeError } from '@/server/providers/local/media-decode-error';
import { extractVideoFrame, renderVideo, VIDEO_HEIGHT, VIDEO_WIDTH } from '@/server/providers/local/video';
import { decodeFrames, meanAbsDifference, probe } from './media-tools';

describe('local video engine', () => {
  it('renders a 2 s H.264 MP4 at 12 fps that ffmpeg decodes completely', async () => {
    const video = await renderVideo({ prompt: 'A red balloon drifting over the sea' });
    expect(video.mimeType).toBe('video/mp4');
    const log = await probe(video.bytes, 'mp4');
    expect(log).toMatch(/Duration: 00:00:02\.00/);
    expect(log).toMatch(/Video: h264 .*yuv420p.*320x240.*12 fps/);
    expect(log).not.toMatch(/Audio:/);
    // +faststart: the index (moov) comes before the media data (mdat).
    expect(video.bytes.indexOf('moov')).toBeGreaterThan(0);
    expect(video.bytes.indexOf('moov')).toBeLessThan(video.bytes.indexOf('mdat'));

    const frames = await decodeFrames(video.bytes, VIDEO_WIDTH, VIDEO_HEIGHT);
    expect(frames).toHaveLength(24);
    // The picture moves: the first and last frames differ.
    expect(meanAbsDifference(frames[0] ?? Buffer.alloc(0), frames[23] ?? Buffer.alloc(0))).toBeGreaterThan(2);
  });

  it('gives the same video for the same prompt and different frames for another', async () => {
    const a = await renderVideo({ prompt: 'sunrise over mountains', durationSeconds: 1 });
    const again = await renderVideo({ prompt: 'sunrise over mountains', durationSeconds: 1 });
    const b = await renderVideo({ prompt: 'a busy night market', durationSeconds: 1 });
    expect(again.bytes.equals(a.bytes)).toBe(true);
    const [framesA, framesB] = await Promise.all([a, b].map((v) => decodeFrames(v.bytes, VIDEO_WIDTH, VIDEO_HEIGHT)));
    expect(framesA).toHaveLength(12);
    expect(meanAbsDifference(framesA?.[0] ?? Buffer.alloc(0), framesB?.[0] ?? Buffer.alloc(1))).toBeGreaterThan(10);
  });

  it('builds frames from an input image', async () => {
    const green = await sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 20, g: 200, b: 30 } } })
      .jpeg()
      .toBuffer();
    const video = await renderVideo({ prompt: 'grow', inputImage: green, durationSeconds: 0.5 });
    const frames = await decodeFrames(video.bytes, VIDEO_WIDTH, VIDEO_HEIGHT);
    expect(frames).toHaveLength(6);
    const frame = frames[0] ?? Buffer.alloc(0);
    // The frame is still mostly the input's green: shapes are drawn over it, not instead of it.
    let g = 0;
    let r = 0;
    for (let i = 0; i < frame.length; i += 3) {
      r += frame[i] ?? 0;
      g += frame[i + 1] ?? 0;
    }
    expect(g).toBeGreaterThan(r * 1.5);
  });

  it('extracts the first frame of a video as PNG, and rejects bad input', async () => {
    const video = await renderVideo({ prompt: 'frame source', durationSeconds: 0.5 });
    const png = await extractVideoFrame(video.bytes, 'video/mp4');
    const meta = await sharp(png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', VIDEO_WIDTH, VIDEO_HEIGHT]);
    await expect(extractVideoFrame(Buffer.from('not a video'), 'video/mp4')).rejects.toBeInstanceOf(MediaDecodeError);
    await expect(extractVideoFrame(video.bytes, 'video/webm')).rejects.toBeInstanceOf(MediaDecodeError); // the demuxer is the declared type's
    await expect(renderVideo({ prompt: 'x', inputImage: Buffer.from('nope') })).rejects.toBeInstanceOf(MediaDecodeError);
    await expect(renderVideo({ prompt: 'x', durationSeconds: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});
