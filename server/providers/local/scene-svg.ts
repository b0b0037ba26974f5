// The picture the local engine draws for a prompt: a palette and shapes chosen by a hash of the
// prompt and style, plus the prompt itself as a caption, so a result is visibly tied to its input.
import { seededRandom } from './seed';

export interface SceneShape {
  kind: 'circle' | 'square' | 'triangle';
  x: number; // centre, 0..1 of the width
  y: number; // centre, 0..1 of the height
  size: number; // radius, 0..1 of the shorter side
  rotation: number; // degrees
  color: string;
  opacity: number;
  // Motion for video frames: a slow oscillation, so shapes never jump.
  swayX: number;
  swayY: number;
  spin: number; // degrees per second
  period: number; // seconds
  phase: number; // radians
}

export interface Scene {
  palette: [string, string, string];
  sketch: boolean;
  shapes: SceneShape[];
  caption: string;
}

export function buildScene(prompt: string, style?: string): Scene {
  const random = seededRandom('scene', prompt, style ?? '');
  const hue = random() * 360;
  const palette: [string, string, string] = [
    hsl(hue, 0.55, 0.28),
    hsl(hue + 40 + random() * 40, 0.6, 0.55),
    hsl(hue + 160 + random() * 60, 0.75, 0.6),
  ];
  const sketch = /sketch|line|pencil|ink/i.test(style ?? '');
  const count = 5 + Math.floor(random() * 5);
  const kinds = ['circle', 'square', 'triangle'] as const;
  const shapes: SceneShape[] = [];
  for (let index = 0; index < count; index += 1) {
    shapes.push({
      kind: kinds[Math.floor(random() * kinds.length)] ?? 'circle',
      x: 0.1 + random() * 0.8,
      y: 0.1 + random() * 0.65,
      size: 0.06 + random() * 0.2,
      rotation: random() * 360,
      color: hsl(hue + random() * 220, 0.5 + random() * 0.4, 0.45 + random() * 0.3),
      opacity: 0.55 + random() * 0.4,
      swayX: 0.02 + random() * 0.08,
      swayY: 0.02 + random() * 0.08,
      spin: (random() - 0.5) * 90,
      period: 1.5 + random() * 3,
      phase: random() * Math.PI * 2,
    });
  }
  return { palette, sketch, shapes, caption: cleanCaption(prompt) };
}

export interface SvgOptions {
  /** Seconds into a video; 0 for a still image. */
  time?: number;
  /** Draw the gradient background (false when composing over an input image). */
  background?: boolean;
  caption?: boolean;
}

export function sceneSvg(scene: Scene, width: number, height: number, options: SvgOptions = {}): string {
  const { time = 0, background = true, caption = true } = options;
  const [dark, mid, light] = scene.palette;
  const side = Math.min(width, height);
  const parts: string[] = [];
  if (background) {
    parts.push(
      `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">` +
        `<stop offset="0" stop-color="${scene.sketch ? '#f4f1ea' : dark}"/>` +
        `<stop offset="1" stop-color="${scene.sketch ? '#dcd6c8' : mid}"/></linearGradient></defs>`,
      `<rect width="${width}" height="${height}" fill="url(#bg)"/>`,
    );
  }
  for (const shape of scene.shapes) parts.push(shapeSvg(shape, width, height, side, time, scene.sketch));
  if (caption && scene.caption) parts.push(captionSvg(scene.caption, width, height, light));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

function shapeSvg(shape: SceneShape, width: number, height: number, side: number, time: number, sketch: boolean): string {
  const angle = (2 * Math.PI * time) / shape.period + shape.phase;
  const cx = round((shape.x + shape.swayX * Math.sin(angle)) * width);
  const cy = round((shape.y + shape.swayY * Math.cos(angle)) * height);
  const r = round(shape.size * side);
  const rotate = `rotate(${round(shape.rotation + shape.spin * time)} ${cx} ${cy})`;
  const paint = sketch
    ? `fill="none" stroke="#2b2b2b" stroke-width="${Math.max(1, round(side / 160))}" opacity="${round(shape.opacity)}"`
    : `fill="${shape.color}" opacity="${round(shape.opacity)}"`;
  if (shape.kind === 'circle') return `<circle cx="${cx}" cy="${cy}" r="${r}" ${paint}/>`;
  if (shape.kind === 'square') {
    return `<rect x="${round(cx - r)}" y="${round(cy - r)}" width="${2 * r}" height="${2 * r}" transform="${rotate}" ${paint}/>`;
  }
  const points = [0, 120, 240]
    .map((deg) => `${round(cx + r * Math.sin((deg * Math.PI) / 180))},${round(cy - r * Math.cos((deg * Math.PI) / 180))}`)
    .join(' ');
  return `<polygon points="${points}" transform="${rotate}" ${paint}/>`;
}

function captionSvg(text: string, width: number, height: number, accent: string): string {
  const fontSize = Math.max(9, Math.round(Math.min(width, height) / 22));
  const perLine = Math.max(8, Math.floor((width - fontSize) / (fontSize * 0.6)));
  const lines = wrap(text, perLine, 3);
  const lineHeight = Math.round(fontSize * 1.3);
  const bandHeight = lines.length * lineHeight + fontSize;
  const top = height - bandHeight;
  const spans = lines
    .map(
      (line, index) => `<tspan x="${Math.round(fontSize / 2)}" y="${top + fontSize * 1.1 + index * lineHeight}">${escapeXml(line)}</tspan>`,
    )
    .join('');
  return (
    `<rect x="0" y="${top}" width="${width}" height="${bandHeight}" fill="#000" fill-opacity="0.55"/>` +
    `<rect x="0" y="${top}" width="${width}" height="${Math.max(2, Math.round(fontSize / 6))}" fill="${accent}"/>` +
    `<text font-family="DejaVu Sans, Liberation Sans, sans-serif" font-size="${fontSize}" fill="#fff">${spans}</text>`
  );
}

/** Greedy word wrap by code points; the last line ends with an ellipsis when text is cut. */
export function wrap(text: string, perLine: number, maxLines: number): string[] {
  const lines: string[] = [];
  let current: string[] = [];
  const words = text.split(' ').flatMap((word) => chunk(Array.from(word), perLine));
  for (const word of words) {
    if (current.length > 0 && current.length + 1 + word.length > perLine) {
      lines.push(current.join(''));
      current = [];
    }
    current = current.length > 0 ? [...current, ' ', ...word] : word;
  }
  if (current.length > 0) lines.push(current.join(''));
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  const last = Array.from(kept[maxLines - 1] ?? '');
  kept[maxLines - 1] = `${last.slice(0, Math.max(0, perLine - 1)).join('')}…`;
  return kept;
}

function chunk(chars: string[], size: number): string[][] {
  const out: string[][] = [];
  for (let index = 0; index < chars.length; index += size) out.push(chars.slice(index, index + size));
  return out;
}

/** Whitespace collapsed; characters XML cannot carry (controls, lone surrogates) dropped. */
function cleanCaption(prompt: string): string {
  return (
    prompt
      // eslint-disable-next-line no-control-regex -- matching control characters is this line's purpose
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/g, '')
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function hsl(hue: number, saturation: number, lightness: number): string {
  const h = (((hue % 360) + 360) % 360) / 60;
  const c = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const [r, g, b] = h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  const m = lightness - c / 2;
  return `#${[r, g, b]
    .map((v) =>
      Math.round((v + m) * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
