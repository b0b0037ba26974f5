import { z } from 'zod';
import { PROVIDER_NAME, PROVIDER_NAME_RULE } from '../../contract/package-schema';

// One schema for a provider key handed in by an operator (CLI stdin, dashboard form, tRPC).

export const setProviderKeyInput = z.strictObject({
  provider: z.string().regex(PROVIDER_NAME, PROVIDER_NAME_RULE),
  // Printable ASCII without spaces: what every provider's keys are made of; a pasted line break is refused, not stored.
  apiKey: z
    .string()
    // Each bound ends the check: an empty key is said once, not also as one of wrong characters.
    .min(1, { error: 'the key is empty', abort: true })
    .max(4096, { error: 'the key is longer than 4096 characters', abort: true })
    .regex(/^[\x21-\x7e]+$/, 'the key must be printable characters without spaces or line breaks'),
});

export type SetProviderKeyInput = z.infer<typeof setProviderKeyInput>;
