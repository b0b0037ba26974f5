import { createHash } from 'node:crypto';
import { ApiError } from './errors';

/**
 * How deep a canonical value may nest. A request's body is fingerprinted whole, and a body of
 * 1 MiB can nest half a million levels, which sorting by recursion would overflow (a 500).
 */
export const MAX_CANONICAL_DEPTH = 128;

/** The 400 of a body nesting past MAX_CANONICAL_DEPTH (also refused before it is parsed, server/http/read-json-body.ts). */
export const nestsTooDeep = () =>
  new ApiError('invalid_request', { message: `The request body nests more than ${MAX_CANONICAL_DEPTH} levels deep.` });

/** JSON with object keys sorted at every depth: equal values give equal text. 400 past MAX_CANONICAL_DEPTH. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth === MAX_CANONICAL_DEPTH) throw nestsTooDeep();
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1));
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => [key, sortKeys(record[key], depth + 1)]),
  );
}

export function sha256Hex(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}
