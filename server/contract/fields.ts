import { z } from 'zod';
import { JOB_ID_PATTERN, LANGUAGE_PATTERN, UPLOAD_ID_PATTERN } from './values';

// Field types shared by the /v1 request schemas. Lengths are counted in Unicode code points
// (CONTRACT.md §1), not the UTF-16 units zod's .min/.max count; the meta keeps the limits
// visible in the OpenAPI document (JSON Schema counts code points too).

function countCodePoints(text: string, stopAfter: number): number {
  let count = 0;
  for (let i = 0; i < text.length && count <= stopAfter; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xdc00 || unit > 0xdfff || i === 0 || !isHighSurrogate(text.charCodeAt(i - 1))) count++;
  }
  return count;
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/** A text's length in characters as CONTRACT.md §1 counts them: Unicode code points (an emoji is 1). */
export const codePointLength = (text: string): number => countCodePoints(text, Number.POSITIVE_INFINITY);

export function text(min: number, max: number) {
  return (
    z
      .string()
      .superRefine((value, ctx) => {
        // Fast path: UTF-16 length bounds code points from above.
        const length = value.length <= max && value.length >= min * 2 ? value.length : countCodePoints(value, max);
        if (length < min) {
          ctx.addIssue({
            code: 'too_small',
            origin: 'string',
            minimum: min,
            inclusive: true,
            input: value,
            message: min === 1 ? 'must not be empty' : `must be at least ${min} characters`,
          });
        } else if (length > max) {
          ctx.addIssue({
            code: 'too_big',
            origin: 'string',
            maximum: max,
            inclusive: true,
            input: value,
            message: `must be at most ${max.toLocaleString('en-US')} characters`,
          });
        }
        // PostgreSQL's text cannot hold U+0000: refused here, for every field, stored or not.
        if (value.includes('\u0000')) {
          ctx.addIssue({
            code: 'custom',
            params: { code: 'invalid_string' },
            input: value,
            message: 'must not contain the NUL character (U+0000)',
          });
        }
        if (!value.isWellFormed()) {
          ctx.addIssue({
            code: 'custom',
            params: { code: 'invalid_string' },
            input: value,
            message: 'must be valid Unicode (no lone surrogates)',
          });
        }
      })
      // The pattern tells generated clients about the NUL rule; lone surrogates cannot be said in JSON Schema.
      .meta({ minLength: min, maxLength: max, pattern: '^[^\\u0000]*$' })
  );
}

/**
 * A request field whose allowed values the key's package version fixes (CONTRACT.md §6): said in
 * the OpenAPI document, where the schema alone cannot show it. `unlisted`: what an omitted field
 * means when the package lists no values (every value allowed).
 */
export function packageSetting<T extends z.ZodType>(schema: T, what: string, unlisted = "the engine's own"): T {
  return described(
    schema,
    `${what} Must be a value the key's package allows, else 422 with issue code \`not_allowed_by_package\`; omitted, the package's default (the first value it lists; ${unlisted} when it lists none).`,
  );
}

/** The schema with a description in the OpenAPI document, keeping the metadata it had (limits, example). */
export function described<T extends z.ZodType>(schema: T, description: string): T {
  return schema.meta({ ...schema.meta(), description });
}

export const language = z.string().regex(LANGUAGE_PATTERN, 'must look like en or en-US').meta({ example: 'en-US' });
export const uploadId = z
  .string()
  .regex(UPLOAD_ID_PATTERN, 'must be an upload id (upl_...)')
  .meta({ example: 'upl_3Yb7QmZk9pW2xN4cR8tL1vHd' });
export const jobId = z.string().regex(JOB_ID_PATTERN, 'must be a job id (job_...)').meta({ example: 'job_9sXk2LqP0aZb7RtY3wVn5mCe' });
export const timestamp = z.string().meta({ format: 'date-time', example: '2026-11-22T01:02:03.456Z' });

// C0 and C1 controls (tab and newline included) and DEL; the bidirectional embeddings, overrides
// and isolates (U+202A..U+202E, U+2066..U+2069) and marks (U+200E, U+200F, U+061C), which make a
// name display as something else ("invoice\u202Efdp.exe" reads as "invoiceexe.pdf").
const CONTROLS = '\\u0001-\\u001F\\u007F-\\u009F';
const UNSAFE_NAME_CHARACTERS = `${CONTROLS}\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069`;
const UNSAFE_NAME = new RegExp(`[${UNSAFE_NAME_CHARACTERS}]`, 'u'); // U+0000: text() already refuses it

/**
 * Any control or bidirectional-formatting character (U+0000 too): text that reaches a terminal (a
 * key's label in `keys list`) or a page holds none, so it shows as what it is.
 */
export const UNSAFE_DISPLAY_CHARACTERS = new RegExp(`[\\u0000${UNSAFE_NAME_CHARACTERS}]`, 'u');

/** What a label or name shown to people is refused for holding an UNSAFE_DISPLAY_CHARACTERS one. */
export const UNSAFE_DISPLAY_RULE = 'must not contain control characters (line breaks, tabs, escapes) or bidirectional-override characters';

/** A file name, or another name shown back to people: `text` without control or bidirectional-formatting characters. */
export function fileName(min: number, max: number) {
  return text(min, max)
    .superRefine((value, ctx) => {
      if (UNSAFE_NAME.test(value)) {
        ctx.addIssue({
          code: 'custom',
          params: { code: 'invalid_string' },
          input: value,
          message: 'must not contain control characters or bidirectional-override characters',
        });
      }
    })
    .meta({ minLength: min, maxLength: max, pattern: `^[^\\u0000${UNSAFE_NAME_CHARACTERS}]*$` });
}

/** A name shown to people (a package's): a file name's rule, for the same reason. */
export const displayName = fileName;
