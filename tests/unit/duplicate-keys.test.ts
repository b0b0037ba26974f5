import { describe, expect, it } from 'vitest';
import { findDuplicateMember } from '@/server/contract/duplicate-members';

describe('findDuplicateMember', () => {
  it.each([
    ['{}', undefined],
    ['{"a":1,"b":2}', undefined],
    ['{"a":{"a":1},"b":{"a":2}}', undefined],
    ['[{"a":1},{"a":1}]', undefined],
    ['{"a":["a","a"],"b":"a"}', undefined],
    ['{"a":"\\"a\\"","b":1}', undefined],
    ['{"x":"}{,[","y":"a","z":1}', undefined],
    ['{"a":1,"a":2}', 'a'],
    [' { "input" : "x" , "input" : "y" } ', 'input'],
    ['{"outer":{"inner":1,"inner":2}}', 'inner'],
    ['{"list":[{"k":1,"k":2}]}', 'k'],
    ['{"input":"x","\\u0069nput":"y"}', 'input'],
    ['{"\\u0069nput":"x","input":"y"}', 'input'],
    ['{"a\\"b":1,"a\\"b":2}', 'a"b'],
    ['{"a":[1,{"b":[{"c":1,"c":2}]}]}', 'c'],
    ['{"a":1,"b":{"x":1},"a":3}', 'a'],
  ])('%s -> %s', (json, expected) => {
    JSON.parse(json); // every case is valid JSON: the scanner only runs after JSON.parse
    expect(findDuplicateMember(json)).toBe(expected);
  });

  it('treats names that differ only after unescaping as equal, and distinct names as distinct', () => {
    expect(findDuplicateMember('{"\\u00e9":1,"é":2}')).toBe('é');
    expect(findDuplicateMember('{"e\\u0301":1,"é":2}')).toBeUndefined(); // different code points
    expect(findDuplicateMember('{"A":1,"a":2}')).toBeUndefined();
  });

  it('handles deep nesting and long inputs', () => {
    const deep = '{"a":'.repeat(500) + '1' + '}'.repeat(500);
    expect(findDuplicateMember(deep)).toBeUndefined();
    const many = `{${Array.from({ length: 5000 }, (_, i) => `"k${i}":${i}`).join(',')},"k4999":0}`;
    expect(findDuplicateMember(many)).toBe('k4999');
  });
});
