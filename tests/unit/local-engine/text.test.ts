import { describe, expect, it } from 'vitest';
import { generateLocalText } from '@/server/providers/local/text';

const input = 'The keeper climbed the stairs at dusk. The lamp turned all night, and ships passed safely by the rocks.';

describe("the local text engine's token cap", () => {
  it('answers the whole digest, with no finish reason, when it fits the cap or there is none', () => {
    const whole = generateLocalText({ input, outputFormat: 'text' });
    expect(whole.finishReason).toBeUndefined();
    expect(generateLocalText({ input, outputFormat: 'text', maxOutputTokens: 10_000 })).toEqual(whole);
  });

  it('stops after the last whole word within cap x 4 characters, with the finish reason length', () => {
    const whole = generateLocalText({ input, outputFormat: 'markdown' }).text;
    const capped = generateLocalText({ input, outputFormat: 'markdown', maxOutputTokens: 6 });
    expect(capped.finishReason).toBe('length');
    expect(capped.text.length).toBeLessThanOrEqual(24);
    expect(whole.startsWith(capped.text)).toBe(true);
    expect(whole[capped.text.length]).toMatch(/\s/);
  });

  it('keeps a word that ends exactly at the cap', () => {
    const whole = generateLocalText({ input, outputFormat: 'text' }).text;
    const boundary = [...whole.matchAll(/\s/g)].map((match) => match.index).find((index) => index > 8 && index % 4 === 0)!;
    const capped = generateLocalText({ input, outputFormat: 'text', maxOutputTokens: boundary / 4 });
    expect(capped.text).toBe(whole.slice(0, boundary).trimEnd());
  });

  it('cuts mid-word when not even one word fits', () => {
    const capped = generateLocalText({ input, outputFormat: 'text', maxOutputTokens: 1 });
    expect(capped).toEqual({ text: '[Loc', finishReason: 'length' });
  });

  it('never cuts a JSON answer: cut, it would not parse', () => {
    const capped = generateLocalText({ input, outputFormat: 'json', maxOutputTokens: 1 });
    expect(capped.finishReason).toBeUndefined();
    expect(JSON.parse(capped.text)).toMatchObject({ engine: 'local' });
  });
});
