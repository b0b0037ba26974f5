import type { z } from 'zod';
import { ApiError, type ValidationIssue } from './errors';

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

/** A field name for a message: cut at 100 code points (the issue's path keeps it whole). */
function named(field: string): string {
  const points = Array.from(field);
  return points.length > 100 ? `${points.slice(0, 100).join('')}…` : field;
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** The dotted names of the first fields an `unrecognized_keys` issue refuses (a body may hold 100,000: only these are named). */
function unknownFieldNames(issue: z.core.$ZodIssueUnrecognizedKeys): string[] {
  const prefix = dotted(issue.path);
  return issue.keys.slice(0, MAX_NAMED_FIELDS).map((key) => (prefix ? `${prefix}.${key}` : key));
}

/**
 * One issue per unknown field, for the first few: a body of a million made-up names must not
 * come back larger than it was sent. The rest are counted in one more issue, on the object's path.
 */
function unknownFieldIssues(issue: z.core.$ZodIssueUnrecognizedKeys): ValidationIssue[] {
  const listed = unknownFieldNames(issue).map((field) => ({
    path: field,
    code: 'unknown_field',
    message: `Unknown field: ${named(field)}.`,
  }));
  const rest = issue.keys.length - listed.length;
  if (rest === 0) return listed;
  return [
    ...listed,
    { path: dotted(issue.path), code: 'unknown_field', message: `${rest} more unknown field${rest === 1 ? '' : 's'}, not listed.` },
  ];
}

/** An issue as zod (or Standard Schema, which may wrap a path's part in `{ key }`) gives it. */
export interface SchemaIssue {
  readonly path?: readonly PropertyKey[] | readonly (PropertyKey | { key: PropertyKey })[];
  readonly code?: string;
  readonly origin?: string;
}

/** An issue's dotted path. */
export const pathOf = (issue: SchemaIssue) =>
  (issue.path ?? []).map((part) => String(typeof part === 'object' && part !== null ? part.key : part)).join('.');
const isSafeIntegerBound = (issue: SchemaIssue) => issue.origin === 'int' && (issue.code === 'too_big' || issue.code === 'too_small');

/**
 * zod's int() bounds a number to JavaScript's safe integers besides the field's own bound: where
 * another issue on the same path says the field's (units at most 1,000,000), 9007199254740991 is left out.
 */
export function withoutSafeIntegerBounds<T extends SchemaIssue>(issues: readonly T[]): T[] {
  return issues.filter(
    (issue) => !isSafeIntegerBound(issue) || !issues.some((other) => !isSafeIntegerBound(other) && pathOf(other) === pathOf(issue)),
  );
}

/**
 * zod issues as the envelope's `details.issues`: dotted path, stable code, readable message.
 * A field of the wrong type is `invalid_type`; only a missing one is `required`, whatever the
 * field's type (judged on the input itself: zod leaves the value out of its issues).
 */
export function formatZodIssues(error: z.ZodError, input: unknown): ValidationIssue[] {
  return withoutSafeIntegerBounds(error.issues).flatMap((issue): ValidationIssue[] => {
    if (issue.code === 'unrecognized_keys') return unknownFieldIssues(issue);
    const path = dotted(issue.path);
    // Whatever zod calls it (an enum says invalid_value), a field that is not there is `required`.
    if (issue.code !== 'custom' && issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
      return [{ path, code: 'required', message: `${path}: required.` }];
    }
    const code = issue.code === 'custom' ? ((issue.params?.code as string | undefined) ?? 'invalid') : issue.code;
    return [{ path, code, message: path ? `${path}: ${issue.message}` : issue.message }];
  });
}

/**
 * The 422 for a body its schema refuses. Its message is the first issue's, except that unknown
 * fields are named together (`Unknown fields: a, b and 3 more.`), as their issues are one each.
 */
export function zodValidationError(error: z.ZodError, input: unknown, message?: string): ApiError {
  const first = error.issues[0];
  if (message === undefined && first?.code === 'unrecognized_keys' && first.keys.length > 1) {
    const more = first.keys.length > MAX_NAMED_FIELDS ? ` and ${first.keys.length - MAX_NAMED_FIELDS} more` : '';
    message = `Unknown fields: ${unknownFieldNames(first).map(named).join(', ')}${more}.`;
  }
  return ApiError.validation(formatZodIssues(error, input), message);
}
