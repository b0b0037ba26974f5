// The dashboard's time range (URL state): a preset counted back from now, or whole UTC days.

export const RANGE_PRESETS = ['24h', '7d', '14d', '30d'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
/** What a page shows when its URL names no range, or one that cannot apply. */
export const DEFAULT_RANGE_PRESET: RangePreset = '14d';

export interface RangeInput {
  range?: RangePreset | 'custom';
  /** Custom range: first and last UTC day, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
}

/** The longest custom range, in days: a year of daily buckets, leap day included. */
export const MAX_RANGE_DAYS = 366;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** A UTC day's midnight, or null when `value` is not a real day written YYYY-MM-DD. */
export function parseUtcDay(value: string | undefined): Date | null {
  if (!value || !DAY.test(value)) return null;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value ? null : date;
}

export interface RangeProblem {
  path: 'from' | 'to';
  code: 'invalid_date' | 'invalid_range';
  message: string;
}

/** What is wrong with a custom range (none: it applies). One rule for the dashboard's pages and its API. */
export function customRangeProblems(from: string | undefined, to: string | undefined): RangeProblem[] {
  const first = parseUtcDay(from);
  const last = parseUtcDay(to);
  const problems: RangeProblem[] = [];
  if (!first) problems.push({ path: 'from', code: 'invalid_date', message: 'from must be a day such as 2026-01-31' });
  if (!last) problems.push({ path: 'to', code: 'invalid_date', message: 'to must be a day such as 2026-01-31' });
  if (!first || !last) return problems;
  if (last < first) return [{ path: 'to', code: 'invalid_range', message: 'to must not be before from' }];
  if (last.getTime() + DAY_MS - first.getTime() > MAX_RANGE_DAYS * DAY_MS) {
    return [{ path: 'to', code: 'invalid_range', message: `a range spans at most ${MAX_RANGE_DAYS} days` }];
  }
  return [];
}
