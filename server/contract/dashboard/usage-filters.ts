import { z } from 'zod';
import { OPERATIONS } from '../../domain/operations';

/** A whole UTC day (YYYY-MM-DD) in the range the database's timestamps and JavaScript's ISO strings share. */
export const usageDay = z.iso
  .date()
  .refine((value) => value >= '1970-01-01' && value <= '9999-12-30', 'must be a day from 1970-01-01 to 9999-12-30');

/** The usage list's filters: the dashboard page, its tRPC procedure and the CSV export read the same ones. */
export const usageFilters = z.strictObject({
  apiKeyId: z.uuid().optional(),
  operation: z.enum(OPERATIONS).optional(),
  outcome: z.enum(['succeeded', 'failed']).optional(),
  from: usageDay.optional(),
  to: usageDay.optional(),
});

export type UsageFiltersInput = z.infer<typeof usageFilters>;

/** Dates are whole UTC days; `to` includes its day. */
export function usageRange(input: { from?: string; to?: string }) {
  return {
    from: input.from ? new Date(`${input.from}T00:00:00.000Z`) : undefined,
    to: input.to ? new Date(new Date(`${input.to}T00:00:00.000Z`).getTime() + 86_400_000) : undefined,
  };
}
