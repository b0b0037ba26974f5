import { describe, expect, it } from 'vitest';
import { nestsDeeperThan, parseJsonObject } from '@/server/http/read-json-body';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects within each other, not brackets inside strings', () => {
    expect(nestsDeeperThan(bytes('{"a":[[1]]}'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[[[1]]]}'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":"[[[[[[{{{{","b":"\\"[[[["}'), 1)).toBe(false);
    expect(nestsDeeperThan(bytes('[[1],[2],[3],{"x":[4]}]'), 3)).toBe(false);
  });

  it('refuses a body past 128 levels with a 400 before JSON.parse sees it', () => {
    const deep = `{"input":"x","z":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    expect(() => parseJsonObject(bytes(deep))).toThrow('The request body nests more than 128 levels deep.');
    expect(parseJsonObject(bytes(`{"z":${'['.repeat(127)}${']'.repeat(127)}}`))).toHaveProperty('z');
  });
});
