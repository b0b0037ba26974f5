import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { renderImage } from '@/server/providers/local/image';
import { mimeMatchesDeclared, SNIFF_BYTES, sniffMime } from '@/server/providers/local/sniff-mime';
import { synthesizeSpeech } from '@/server/providers/local/speech';
import { renderVideo } from '@/server/providers/local/video';
import { transcode } from './media-tools';

describe('sniffMime', () => {
  it('recognises every accepted format from the first bytes', async () => {
    const wav = (await synthesizeSpeech({ text: 'sniff me', format: 'wav' })).bytes;
    const samples: [string, Buffer][] = [
      ['image/png', (await renderImage({ prompt: 'p', format: 'png', width: 64, height: 64 })).bytes],
      ['image/jpeg', (await renderImage({ prompt: 'p', format: 'jpeg', width: 64, height: 64 })).bytes],
      ['image/webp', (await renderImage({ prompt: 'p', format: 'webp', width: 64, height: 64 })).bytes],
      ['audio/wav', wav],
      ['audio/mpeg', (await synthesizeSpeech({ text: 'sniff me', format: 'mp3' })).bytes],
      ['audio/mp4', await transcode(wav, ['-c:a', 'aac', '-f', 'ipod'], 'm4a')],
      ['video/mp4', (await renderVideo({ prompt: 'p', durationSeconds: 0.25 })).bytes],
      ['video/webm', await transcode(wav, ['-c:a', 'libopus', '-f', 'webm'], 'webm')],
    ];
    for (const [mime, bytes] of samples) {
      expect({ mime, sniffed: await sniffMime(bytes.subarray(0, SNIFF_BYTES)) }).toEqual({ mime, sniffed: mime });
    }
  });

  it('rejects text and formats the product does not accept', async () => {
    expect(await sniffMime(Buffer.from('{"hello": "this is a JSON text file, not media"}\n'))).toBeUndefined();
    expect(await sniffMime(Buffer.from('RIFF but not really'))).toBeUndefined();
    expect(await sniffMime(Buffer.alloc(0))).toBeUndefined();
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#f00' } })
      .gif()
      .toBuffer();
    expect(await sniffMime(gif)).toBeUndefined();
  });
});

describe('mimeMatchesDeclared', () => {
  it.each([
    ['audio/wav', 'audio/wav', true],
    ['audio/x-wav', 'audio/wav', true],
    ['audio/vnd.wave', 'audio/wav', true],
    ['audio/mp4', 'video/mp4', true],
    ['video/mp4', 'audio/mp4', true],
    ['Image/PNG', 'image/png', true],
    ['audio/mpeg', 'audio/mpeg', true],
    ['image/png', 'image/jpeg', false],
    ['audio/mpeg', 'audio/wav', false],
    ['video/webm', 'video/mp4', false],
    ['audio/mp4', 'audio/mpeg', false],
    ['image/png', undefined, false],
    ['', '', false],
  ] as const)('%s vs %s -> %s', (declared, sniffed, expected) => {
    expect(mimeMatchesDeclared(declared, sniffed)).toBe(expected);
  });
});
