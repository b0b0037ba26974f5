import { z } from 'zod';
import { ERROR_CODES } from '../domain/errors';

export const errorResponseSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(ERROR_CODES as [string, ...string[]]),
      message: z.string(),
      request_id: z.string().regex(/^req_[A-Za-z0-9_-]{24,}$/),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'Error', description: 'Every error response has exactly this shape (interface-v1.md §7).' });

export type ErrorResponse = z.infer<typeof errorResponseSchema>;
