import {
  customRangeProblems,
  DEFAULT_RANGE_PRESET,
  parseUtcDay,
  type RangeInput,
  type RangePreset,
} from '../../contract/dashboard/time-range';
import { ApiError } from '../errors';

// The dashboard's time range (contract/dashboard/time-range.ts) resolved to dates and chart buckets.

export interface TimeRange {
  from: Date;
  to: Date;
  /** Chart buckets: hours for up to two days, else UTC days. */
  bucket: 'hour' | 'day';
  label: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PRESET_HOURS: Record<RangePreset, number> = { '24h': 24, '7d': 168, '14d': 336, '30d': 720 };

export function resolveTimeRange(input: RangeInput = {}, now = new Date()): TimeRange {
  if (input.range === 'custom') {
    const problems = customRangeProblems(input.from, input.to);
    if (problems.length > 0) throw ApiError.validation(problems);
    const from = parseUtcDay(input.from)!;
    const to = new Date(parseUtcDay(input.to)!.getTime() + DAY_MS);
    return { from, to, bucket: to.getTime() - from.getTime() <= 2 * DAY_MS ? 'hour' : 'day', label: `${input.from} to ${input.to} (UTC)` };
  }
  const preset = input.range ?? DEFAULT_RANGE_PRESET;
  const hours = PRESET_HOURS[preset];
  if (hours > 48) {
    // Whole UTC days, today's included: the days the usage list's filters and the daily figures count
    // (a rolling window drew part-days at both ends that no day filter matched: outside audit).
    const to = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS);
    return { from: new Date(to.getTime() - hours * HOUR_MS), to, bucket: 'day', label: `the last ${hours / 24} days` };
  }
  // Whole hours, so the first bucket is not a sliver and a refresh within the hour keeps its buckets.
  const to = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
  return { from: new Date(to.getTime() - hours * HOUR_MS), to, bucket: 'hour', label: 'the last 24 hours' };
}

/** Every bucket start of the range, so hours or days without traffic are zeros, not gaps. */
export function bucketStarts(range: TimeRange): Date[] {
  const step = range.bucket === 'hour' ? HOUR_MS : DAY_MS;
  const first =
    range.bucket === 'hour' ? Math.floor(range.from.getTime() / HOUR_MS) * HOUR_MS : Math.floor(range.from.getTime() / DAY_MS) * DAY_MS;
  const starts: Date[] = [];
  for (let at = first; at < range.to.getTime(); at += step) starts.push(new Date(at));
  return starts;
}
