import { describe, expect, it } from 'vitest';
import { canonicalJson, MAX_CANONICAL_DEPTH } from '@/server/domain/canonical-json';
import { ApiError } from '@/server/domain/errors';

// The canonical text a request's fingerprint hashes. A body nesting half a million levels (1 MiB
// allows it) overflowed the recursion into a 500 (outside audit); past the limit it is a 400.

/** `levels` arrays, each the only item of the one around it, around a 0 (built without recursion). */
function deep(levels: number): unknown {
  let value: unknown = 0;
  for (let level = 0; level < levels; level += 1) value = [value];
  return value;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves out undefined members', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[{"y":2,"z":1}]},"b":1}');
  });

  it(`takes ${MAX_CANONICAL_DEPTH} levels and refuses more with 400 invalid_request`, () => {
    expect(canonicalJson(deep(MAX_CANONICAL_DEPTH))).toMatch(/^\[{128}0\]{128}$/);
    for (const levels of [MAX_CANONICAL_DEPTH + 1, 500_000]) {
      const error = (() => {
        try {
          return canonicalJson(deep(levels));
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    }
  });
});
