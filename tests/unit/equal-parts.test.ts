import { describe, expect, it } from 'vitest';
import { equalParts } from '@/server/storage/s3-store';

// S3-compatible multipart uploads: every part but the last the same size (Cloudflare R2
// refuses a multipart object whose parts differ), whatever the chunks the stream arrives in.

async function* chunks(sizes: number[]) {
  let value = 0;
  for (const size of sizes) yield Buffer.from(Array.from({ length: size }, () => value++ % 256));
}

async function collect(sizes: number[], partBytes: number): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for await (const part of equalParts(chunks(sizes), partBytes)) parts.push(part);
  return parts;
}

describe('equalParts', () => {
  it('cuts chunks that straddle part boundaries into equal parts, the rest last, bytes in order', async () => {
    const sizes = [3, 7, 1, 10, 2, 5];
    const parts = await collect(sizes, 4);
    expect(parts.map((part) => part.length)).toEqual([4, 4, 4, 4, 4, 4, 4]);
    const whole = Buffer.concat(parts);
    expect(whole.length).toBe(28);
    expect([...whole]).toEqual(Array.from({ length: 28 }, (_, i) => i));
  });

  it('a shorter last part, and no empty one when the total is a multiple of the part size', async () => {
    expect((await collect([5, 5], 4)).map((p) => p.length)).toEqual([4, 4, 2]);
    expect((await collect([8], 4)).map((p) => p.length)).toEqual([4, 4]);
    expect(await collect([], 4)).toEqual([]);
  });
});
