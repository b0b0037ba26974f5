import type { z } from 'zod';
import type { ValidationIssue } from './errors';

const MAX_NAMED_FIELDS = 10;

/** The value at a zod issue's path in the parsed input (undefined when absent). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/**
 * zod issues as the envelope's `details.issues`: dotted path, stable code, readable message.
 * A field of the wrong type is `invalid_type`; only a missing one is `required` (judged on the
 * input itself: zod leaves the value out of its issues).
 */
export function formatZodIssues(error: z.ZodError, input: unknown): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const fields = issue.keys.map((key) => (path ? `${path}.${key}` : key));
      // The message names a few, each cut at 100 code points: a body of a million made-up names
      // must not come back larger than it was sent. The path stays the exact field path.
      const named = fields.slice(0, MAX_NAMED_FIELDS).map((field) => {
        const points = Array.from(field);
        return points.length > 100 ? `${points.slice(0, 100).join('')}…` : field;
      });
      const more = fields.length > named.length ? ` and ${fields.length - named.length} more` : '';
      return {
        path: fields[0] ?? path,
        code: 'unknown_field',
        message: `Unknown field${fields.length > 1 ? 's' : ''}: ${named.join(', ')}${more}.`,
      };
    }
    const code =
      issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined
        ? 'required'
        : issue.code === 'custom'
          ? ((issue.params?.code as string | undefined) ?? 'invalid')
          : issue.code;
    return { path, code, message: path ? `${path}: ${issue.message}` : issue.message };
  });
}
