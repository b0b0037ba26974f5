import { z } from 'zod';
import { UNSAFE_DISPLAY_CHARACTERS, UNSAFE_DISPLAY_RULE } from '../fields';
import { PG_INTEGER_MAX } from '../pg-integer';
import { usageDay } from './usage-filters';

/** A label is shown in terminals (the CLI's `keys list`) and pages, never as escape codes or extra lines. */
const keyLabel = z
  .string()
  .trim()
  .max(200)
  .refine((label) => !UNSAFE_DISPLAY_CHARACTERS.test(label), UNSAFE_DISPLAY_RULE);

/** Issuing a key from the dashboard: the form validates with this schema and so does the procedure. */
export const keyIssueInput = z.strictObject({
  packageSlug: z.string().min(1).max(63),
  version: z.number().int().min(1).max(PG_INTEGER_MAX).optional(),
  label: keyLabel.pipe(z.string().min(1)).optional(),
  /** The last UTC day the key works. */
  expiresOn: usageDay.optional(),
  extraUnits: z.number().int().min(0).max(1_000_000_000).optional(),
});

export const keyLabelInput = z.strictObject({ label: keyLabel.nullable() });

/** A key's buyer's e-mail (the address that confirms its portal changes), set on the key's page; null removes it. */
export const buyerEmailInput = z.strictObject({ email: z.string().trim().max(254).nullable() });
