import { z } from 'zod';
import { ERROR_CODES } from './error-catalog';
import { REQUEST_ID_PATTERN } from './values';

export const errorResponseSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(ERROR_CODES as [string, ...string[]]),
      message: z.string(),
      request_id: z.string().regex(REQUEST_ID_PATTERN),
      details: z
        .looseObject({
          issues: z
            .array(
              z.strictObject({
                path: z.string().meta({ description: 'The dotted path of the field (`requirements.3`); empty for the body itself.' }),
                code: z.string().meta({
                  description:
                    "A stable machine string. Schema: `required`, `unknown_field`, `invalid_type`, `too_small`, `too_big`, `invalid_value` (not one of the enum), `invalid_format` (a pattern), `invalid_string` (U+0000 or a lone surrogate; in a file name also a control or bidirectional-formatting character). Package: `not_allowed_by_package` (a value the key's package does not allow; an omitted field takes the package's default). Uploads: `upload_not_verified`, `upload_wrong_purpose`, `upload_expired`, `not_uploaded`, `size_mismatch`, `sha256_mismatch`, `content_mismatch`, `mime_type_mismatch`, `undecodable_media`, `input_too_long` (longer than the package's `max_input_seconds`; `details` then also has `max_input_seconds`).",
                }),
                message: z.string(),
              }),
            )
            .optional()
            .meta({ description: 'On 422 `validation_error`: one entry per refused field, all of them at once.' }),
        })
        .optional()
        .meta({
          description:
            'Optional; an object with arbitrary members. On 422 `validation_error` it is `{"issues":[{"path","code","message"}]}`.',
        }),
    }),
  })
  .meta({ id: 'Error', description: 'Every error response has exactly this shape (interface-v1.md §7).' });

export type ErrorResponse = z.infer<typeof errorResponseSchema>;
