import { z } from 'zod';
import { OPERATIONS } from '../values';

/** A whole UTC day (YYYY-MM-DD) in the range the database's timestamps and JavaScript's ISO strings share. */
export const usageDay = z.iso
  .date()
  .refine((value) => value >= '1970-01-01' && value <= '9999-12-30', 'must be a day from 1970-01-01 to 9999-12-30');

/** The usage list's filters: the dashboard page, its tRPC procedure and the CSV export read the same ones. */
export const usageFilters = z.strictObject({
  apiKeyId: z.uuid().optional(),
  /** A key's id, the start of its prefix or part of its label. */
  key: z.string().trim().min(1).max(200).optional(),
  /** One request's event: request ids elsewhere link here. */
  request: z.string().trim().min(1).max(200).optional(),
  operation: z.enum(OPERATIONS).optional(),
  outcome: z.enum(['succeeded', 'failed']).optional(),
  from: usageDay.optional(),
  to: usageDay.optional(),
});

export type UsageFiltersInput = z.infer<typeof usageFilters>;

/** The URL parameter of each filter (the page, its links and the CSV export agree on them). */
export const USAGE_FILTER_PARAMS = {
  key: 'key',
  request: 'request',
  operation: 'operation',
  outcome: 'outcome',
  from: 'from',
  to: 'to',
} as const;

const TO_BEFORE_FROM = 'To must be the same day as From or later.';

/** A `to` before `from` names no day: it is refused, never read as a range that holds nothing. */
const daysOutOfOrder = (input: { from?: string; to?: string }) => Boolean(input.from && input.to && input.from > input.to);

/** A procedure's filters with days (usage, jobs): a range out of order is refused on `to`, as the pages and the export refuse it. */
export function inDayOrder<T extends z.ZodType<{ from?: string; to?: string }>>(schema: T) {
  return schema.refine((input) => !daysOutOfOrder(input), { path: ['to'], message: TO_BEFORE_FROM });
}

/**
 * Reads the filters from URL parameters one by one: a value that cannot apply is reported on its
 * own field (with the reason) and left out, the others still apply.
 */
export function parseUsageFilters(read: (name: string) => string | undefined) {
  const filters: Omit<UsageFiltersInput, 'apiKeyId'> = {};
  const invalid: Partial<Record<keyof typeof USAGE_FILTER_PARAMS, string>> = {};
  for (const [field, name] of Object.entries(USAGE_FILTER_PARAMS) as [keyof typeof USAGE_FILTER_PARAMS, string][]) {
    const value = read(name)?.trim();
    if (!value) continue;
    // U+0000 cannot be stored or searched for in PostgreSQL: such a value cannot apply.
    const parsed = value.includes('\u0000') ? { success: false as const } : usageFilters.shape[field].safeParse(value);
    if (parsed.success) Object.assign(filters, { [field]: parsed.data });
    else invalid[field] = USAGE_FILTER_HINTS[field];
  }
  if (daysOutOfOrder(filters)) {
    invalid.to = TO_BEFORE_FROM;
    delete filters.to;
  }
  return { filters, invalid };
}

const USAGE_FILTER_HINTS: Record<keyof typeof USAGE_FILTER_PARAMS, string> = {
  key: 'Key must be at most 200 characters: a prefix (wgs_live_…), a label or an id.',
  request: 'Request id must be at most 200 characters.',
  operation: `Operation must be one of ${OPERATIONS.join(', ')}.`,
  outcome: 'Outcome must be succeeded or failed.',
  from: 'From must be a UTC day written YYYY-MM-DD, from 1970-01-01 to 9999-12-30.',
  to: 'To must be a UTC day written YYYY-MM-DD, from 1970-01-01 to 9999-12-30.',
};

/** Dates are whole UTC days; `to` includes its day. */
export function usageRange(input: { from?: string; to?: string }) {
  return {
    from: input.from ? new Date(`${input.from}T00:00:00.000Z`) : undefined,
    to: input.to ? new Date(new Date(`${input.to}T00:00:00.000Z`).getTime() + 86_400_000) : undefined,
  };
}

/** A request's usage row: where every request id in the dashboard links. */
export const usageRowHref = (requestId: string) => `/usage?request=${encodeURIComponent(requestId)}`;
