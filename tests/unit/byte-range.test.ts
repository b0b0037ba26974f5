import { describe, expect, it } from 'vitest';
import { parseContentRange, parseRangeHeader, rangeHeaderOf, selectBytes } from '@/server/storage/byte-range';

describe('one byte range of an output (RFC 9110 §14)', () => {
  it('reads a single bytes= range; several, none, backwards or another unit are none', () => {
    expect(parseRangeHeader('bytes=0-99')).toEqual({ first: 0, last: 99 });
    expect(parseRangeHeader(' bytes=100- ')).toEqual({ first: 100 });
    expect(parseRangeHeader('bytes=-500')).toEqual({ suffix: 500 });
    for (const header of [
      null,
      '',
      'bytes=-',
      'bytes=-0',
      'bytes=5-4',
      'bytes=0-1,3-4',
      'items=0-1',
      'bytes=a-b',
      `bytes=${'9'.repeat(16)}-`,
    ]) {
      expect(parseRangeHeader(header), String(header)).toBeUndefined();
    }
  });

  it('selects the bytes of an object of a given size; none past its end', () => {
    expect(selectBytes({ first: 0, last: 99 }, 50)).toEqual({ start: 0, end: 49 });
    expect(selectBytes({ first: 10 }, 50)).toEqual({ start: 10, end: 49 });
    expect(selectBytes({ suffix: 500 }, 50)).toEqual({ start: 0, end: 49 });
    expect(selectBytes({ suffix: 5 }, 50)).toEqual({ start: 45, end: 49 });
    expect(selectBytes({ first: 50 }, 50)).toBeNull();
    expect(selectBytes({ suffix: 5 }, 0)).toBeNull();
  });

  it("writes a store's Range header and reads its Content-Range", () => {
    expect(rangeHeaderOf({ start: 3, end: 9 })).toBe('bytes=3-9');
    expect(parseContentRange('bytes 3-9/100')).toEqual({ start: 3, end: 9, size: 100 });
    expect(parseContentRange('bytes */100')).toBeNull();
    expect(parseContentRange(undefined)).toBeNull();
  });
});
