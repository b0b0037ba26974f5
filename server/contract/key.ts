import { z } from 'zod';
import { timestamp } from './fields';
import { OPERATIONS } from './values';

// GET /v1/key (an extension of v1): the calling key describes itself. The package's settings as
// the package file names them, without the engine (engines and providers stay private).

const operationSettings = z
  .looseObject({
    units: z.number().int().min(0).meta({ description: 'Units charged per successful call.' }),
  })
  .meta({
    description:
      "The settings the key's package allows for the operation, as the package file names them (e.g. `output_formats`, " +
      '`voices`, `languages`, `timestamps`, `input_uploads`); the first value of a list is the default. Never the engine.',
  });

export const keySchema = z
  .strictObject({
    object: z.literal('key'),
    prefix: z.string().meta({ description: 'The first characters of the key, as the dashboard shows them.', example: 'wgs_live_AbC1' }),
    package: z.strictObject({ slug: z.string(), name: z.string(), version: z.number().int().min(1) }),
    operations: z.partialRecord(z.enum(OPERATIONS), operationSettings),
    limits: z.strictObject({
      requests_per_minute: z.number().int().min(1),
      concurrency: z.number().int().min(1),
      max_upload_bytes: z.number().int().min(0),
      max_stored_bytes: z.number().int().min(1).meta({
        description:
          "What the key may hold in storage at once: the package's `max_stored_bytes`, else 10 x `max_upload_bytes`. Uploads (pending or verified) and outputs count until they are deleted; `POST /v1/uploads` past it is 413. A generation is never refused for it (its output's size is not known before it is made), so outputs may take a key past it.",
      }),
    }),
    remaining_units: z.number().int().min(0),
    expires_at: timestamp.nullable(),
  })
  .meta({ id: 'Key' });

export type KeyDescription = z.infer<typeof keySchema>;
