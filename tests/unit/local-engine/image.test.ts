import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderImage, type ImageFormat } from '@/server/providers/local/image';
import { MediaDecodeError } from '@/server/providers/local/media-decode-error';
import { renderVideo } from '@/server/providers/local/video';
import { meanAbsDifference } from './media-tools';

const PROMPT = 'A lighthouse on a rocky coast at dusk';

async function decode(bytes: Buffer) {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { meta, data, info };
}

function channelMeans(data: Buffer, channels: number): number[] {
  const sums = new Array<number>(channels).fill(0);
  for (let i = 0; i < data.length; i += 1) sums[i % channels] = (sums[i % channels] ?? 0) + (data[i] ?? 0);
  return sums.map((sum) => sum / (data.length / channels));
}

describe('local image engine', () => {
  it.each<[ImageFormat, string]>([
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
    ['webp', 'image/webp'],
  ])('renders a decodable %s of the default size', async (format, mimeType) => {
    const image = await renderImage({ prompt: PROMPT, format });
    expect(image).toMatchObject({ mimeType, width: 512, height: 512 });
    const { meta, data, info } = await decode(image.bytes);
    expect(meta.format).toBe(format);
    expect([meta.width, meta.height]).toEqual([512, 512]);
    expect(data.length).toBe(512 * 512 * info.channels);
    // A picture, not a flat fill: many distinct colours.
    const colours = new Set<number>();
    for (let i = 0; i < data.length; i += info.channels * 7)
      colours.add(((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0));
    expect(colours.size).toBeGreaterThan(50);
  });

  it('is byte-identical for the same input and differs for another prompt or style', async () => {
    const first = await renderImage({ prompt: PROMPT, format: 'png' });
    const again = await renderImage({ prompt: PROMPT, format: 'png' });
    expect(again.bytes.equals(first.bytes)).toBe(true);

    const pixels = (await decode(first.bytes)).data;
    const other = (await decode((await renderImage({ prompt: 'A bowl of ripe lemons', format: 'png' })).bytes)).data;
    const styled = (await decode((await renderImage({ prompt: PROMPT, style: 'sketch', format: 'png' })).bytes)).data;
    expect(meanAbsDifference(pixels, other)).toBeGreaterThan(10);
    expect(meanAbsDifference(pixels, styled)).toBeGreaterThan(10);
  });

  it('draws the prompt as a caption in the bottom band', async () => {
    const { data, info } = await decode((await renderImage({ prompt: 'Caption text here', format: 'png' })).bytes);
    const band = data.subarray(info.width * info.channels * (info.height - 40));
    const white = [];
    for (let i = 0; i < band.length; i += info.channels)
      if ((band[i] ?? 0) > 235 && (band[i + 1] ?? 0) > 235 && (band[i + 2] ?? 0) > 235) white.push(i);
    expect(white.length).toBeGreaterThan(100);

    // The caption tracks the text: a longer prompt wraps onto more lines of white glyphs.
    const long = await decode((await renderImage({ prompt: 'Caption text here '.repeat(6), format: 'png' })).bytes);
    const longBand = long.data.subarray(info.width * info.channels * (info.height - 100));
    let longWhite = 0;
    for (let i = 0; i < longBand.length; i += info.channels)
      if ((longBand[i] ?? 0) > 235 && (longBand[i + 1] ?? 0) > 235 && (longBand[i + 2] ?? 0) > 235) longWhite += 1;
    expect(longWhite).toBeGreaterThan(white.length * 2);
  });

  it('honours a requested size', async () => {
    const image = await renderImage({ prompt: PROMPT, format: 'webp', width: 320, height: 200 });
    const meta = await sharp(image.bytes).metadata();
    expect([image.width, image.height, meta.width, meta.height]).toEqual([320, 200, 320, 200]);
    await expect(renderImage({ prompt: PROMPT, format: 'png', width: 5 })).rejects.toBeInstanceOf(RangeError);
  });

  it('transforms an input image, keeping its colours and aspect ratio', async () => {
    const solid = (r: number, g: number, b: number) =>
      sharp({ create: { width: 400, height: 200, channels: 3, background: { r, g, b } } })
        .png()
        .toBuffer();
    const fromRed = await renderImage({ prompt: 'warm it up', format: 'jpeg', inputImage: await solid(220, 20, 20) });
    const fromBlue = await renderImage({ prompt: 'warm it up', format: 'jpeg', inputImage: await solid(20, 20, 220) });
    expect([fromRed.width, fromRed.height]).toEqual([512, 256]);
    const red = await decode(fromRed.bytes);
    const blue = await decode(fromBlue.bytes);
    expect([red.meta.format, red.meta.width, red.meta.height]).toEqual(['jpeg', 512, 256]);
    const [rR = 0, rG = 0, rB = 0] = channelMeans(red.data, red.info.channels);
    const [bR = 0, bG = 0, bB = 0] = channelMeans(blue.data, blue.info.channels);
    expect(rR).toBeGreaterThan(Math.max(rG, rB) + 40);
    expect(bB).toBeGreaterThan(Math.max(bR, bG) + 40);

    const again = await renderImage({ prompt: 'warm it up', format: 'jpeg', inputImage: await solid(220, 20, 20) });
    expect(again.bytes.equals(fromRed.bytes)).toBe(true);
  });

  it('rejects an input that is not an image with MediaDecodeError', async () => {
    await expect(renderImage({ prompt: 'x', format: 'png', inputImage: Buffer.from('not an image at all') })).rejects.toBeInstanceOf(
      MediaDecodeError,
    );
  });

  it('refuses an input image of more than 36 million pixels from its header, unread (outside audit: 800 MB for a 1.5 MB progressive JPEG)', async () => {
    const small = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#345' } })
      .jpeg({ progressive: true })
      .toBuffer();
    // The frame header (SOF2, progressive) states the size: height, then width, after its length and precision.
    const frame = small.indexOf(Buffer.from([0xff, 0xc2]));
    const huge = Buffer.from(small);
    huge.writeUInt16BE(16_383, frame + 5);
    huge.writeUInt16BE(16_383, frame + 7);
    expect(await sharp(huge).metadata()).toMatchObject({ width: 16_383, height: 16_383 });
    const refusal = new MediaDecodeError('The input image is 16383 x 16383 pixels, more than the 36 million the local engine takes.');
    await expect(renderImage({ prompt: 'x', format: 'png', inputImage: huge })).rejects.toThrow(refusal);
    await expect(renderVideo({ prompt: 'x', inputImage: huge, durationSeconds: 0.5 })).rejects.toThrow(refusal);
  });
});
