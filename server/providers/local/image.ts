// Local image engine: draws the prompt's deterministic scene (see scene-svg.ts) or, given an
// input image, tints it with the prompt's palette and overlays the scene's caption.
import type { OutputInfo, Sharp } from 'sharp';
import { loadSharp } from '../load-sharp';
import { openInputImage } from './input-image';
import { MediaDecodeError } from './media-decode-error';
import { buildScene, sceneSvg } from './scene-svg';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface RenderImageInput {
  prompt: string;
  style?: string;
  format: ImageFormat;
  inputImage?: Buffer;
  width?: number;
  height?: number;
}

export interface RenderedImage {
  bytes: Buffer;
  mimeType: string;
  width: number;
  height: number;
}

const DEFAULT_SIDE = 512;
const MAX_SIDE = 4096;
const MIME_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export async function renderImage(input: RenderImageInput): Promise<RenderedImage> {
  const scene = buildScene(input.prompt, input.style);
  const base = input.inputImage
    ? await transformInput(input.inputImage, scene, input.width, input.height)
    : await drawScene(scene, checkSide(input.width, 'width'), checkSide(input.height, 'height'));
  const bytes = await encode(base.image, input.format);
  return { bytes, mimeType: MIME_TYPES[input.format], width: base.width, height: base.height };
}

async function drawScene(scene: ReturnType<typeof buildScene>, width: number, height: number) {
  const svg = Buffer.from(sceneSvg(scene, width, height));
  const sharp = await loadSharp();
  return { image: sharp(svg, { density: 72 }).resize(width, height, { fit: 'fill' }), width, height };
}

async function transformInput(bytes: Buffer, scene: ReturnType<typeof buildScene>, width: number | undefined, height: number | undefined) {
  const sharp = await loadSharp();
  const input = await openInputImage(bytes);
  let raw: { data: Buffer; info: OutputInfo };
  try {
    // Without a requested size, keep the input's aspect ratio within the default square.
    const resize =
      width === undefined && height === undefined
        ? { width: DEFAULT_SIDE, height: DEFAULT_SIDE, fit: 'inside' as const }
        : { width: checkSide(width, 'width'), height: checkSide(height, 'height'), fit: 'cover' as const };
    raw = await input.rotate().resize(resize).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new MediaDecodeError('The input image could not be decoded.', { cause: error });
  }
  const { width: w, height: h, channels } = raw.info;
  const [, mid, light] = scene.palette;
  // A soft-light wash in the prompt's colours, the prompt's shapes faintly, then the caption.
  const tint = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><linearGradient id="t" x1="0" y1="0" x2="1" y2="1">` +
      `<stop offset="0" stop-color="${mid}"/><stop offset="1" stop-color="${light}"/></linearGradient></defs>` +
      `<rect width="${w}" height="${h}" fill="url(#t)"/></svg>`,
  );
  const overlay = Buffer.from(
    sceneSvg({ ...scene, shapes: scene.shapes.map((s) => ({ ...s, opacity: s.opacity * 0.35 })) }, w, h, { background: false }),
  );
  const image = sharp(raw.data, { raw: { width: w, height: h, channels } }).composite([
    { input: tint, blend: 'soft-light' },
    { input: overlay, blend: 'over' },
  ]);
  return { image, width: w, height: h };
}

function encode(image: Sharp, format: ImageFormat): Promise<Buffer> {
  if (format === 'png') return image.png({ compressionLevel: 9 }).toBuffer();
  if (format === 'jpeg') return image.flatten({ background: '#000' }).jpeg({ quality: 88, mozjpeg: true }).toBuffer();
  return image.webp({ quality: 85 }).toBuffer();
}

function checkSide(value: number | undefined, name: string): number {
  if (value === undefined) return DEFAULT_SIDE;
  if (!Number.isInteger(value) || value < 16 || value > MAX_SIDE) {
    throw new RangeError(`${name} must be an integer from 16 to ${MAX_SIDE}.`);
  }
  return value;
}
