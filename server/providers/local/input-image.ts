import type { Sharp } from 'sharp';
import { loadSharp } from '../load-sharp';
import { MediaDecodeError } from './media-decode-error';

// A customer's input image, opened for the local engine's image and video renders. libvips
// shrinks a baseline JPEG as it reads it, but a progressive one is held whole (about 3 bytes a
// pixel) before it is shrunk: a 1.5 MB file of 16383 x 16383 took 800 MB of the server's memory.
// So an image's size is read from its header first, and one past the limit is refused unread.

/** The most pixels an input image may have (a 6000 x 6000 photo; about 110 MB to decode at worst). */
export const MAX_INPUT_PIXELS = 36_000_000;

export async function openInputImage(bytes: Buffer): Promise<Sharp> {
  const sharp = await loadSharp();
  let width: number;
  let height: number;
  try {
    ({ width, height } = await sharp(bytes).metadata());
  } catch (error) {
    throw new MediaDecodeError('The input image could not be decoded.', { cause: error });
  }
  if (width * height > MAX_INPUT_PIXELS) {
    throw new MediaDecodeError(
      `The input image is ${width} x ${height} pixels, more than the ${MAX_INPUT_PIXELS / 1_000_000} million the local engine takes.`,
    );
  }
  return sharp(bytes, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS });
}
