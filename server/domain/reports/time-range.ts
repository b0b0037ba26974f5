import type { RangeInput, RangePreset } from '../../contract/dashboard/time-range';
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
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(value: string | undefined, field: string): Date {
  const date = value && DAY.test(value) ? new Date(`${value}T00:00:00.000Z`) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
    throw ApiError.validation([{ path: field, code: 'invalid_date', message: `${field} must be a day such as 2026-01-31` }]);
  }
  return date;
}

export function resolveTimeRange(input: RangeInput = {}, now = new Date()): TimeRange {
  if (input.range === 'custom') {
    const from = parseDay(input.from, 'from');
    const to = new Date(parseDay(input.to, 'to').getTime() + DAY_MS);
    if (to <= from) throw ApiError.validation([{ path: 'to', code: 'invalid_range', message: 'to must not be before from' }]);
    if (to.getTime() - from.getTime() > 366 * DAY_MS) {
      throw ApiError.validation([{ path: 'to', code: 'invalid_range', message: 'a range spans at most 366 days' }]);
    }
    return { from, to, bucket: to.getTime() - from.getTime() <= 2 * DAY_MS ? 'hour' : 'day', label: `${input.from} to ${input.to} (UTC)` };
  }
  const preset = input.range ?? '14d';
  // Whole hours, so the first bucket is not a sliver and a refresh within the hour keeps its buckets.
  const to = new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);
  const hours = PRESET_HOURS[preset];
  const from = new Date(to.getTime() - hours * HOUR_MS);
  const label = preset === '24h' ? 'the last 24 hours' : `the last ${hours / 24} days`;
  return { from, to, bucket: hours <= 48 ? 'hour' : 'day', label };
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
