import type { ReactNode } from 'react';
import { formatDate } from '../ui/format';

// What the charts' axes and tooltips write: the tables' formats (a day, an hour in UTC, money in
// the deployment's currency), never an ISO timestamp or a bare number.

export type Bucket = 'hour' | 'day';

/** A bucket's start as the tables write it: the day (2026-12-07), or the hour (2026-12-07 13:00:00 UTC). */
export const bucketLabel = (at: string, bucket: Bucket) => (bucket === 'hour' ? formatDate(at) : at.slice(0, 10));

/** An axis tick: the hour (13:00) or the day (12-07), the day with its year when the buckets span more than one year. */
export function bucketTick(bucket: Bucket, starts: readonly string[]): (at: string) => string {
  if (bucket === 'hour') return (at) => `${at.slice(11, 13)}:00`;
  const years = new Set(starts.map((at) => at.slice(0, 4)));
  return years.size > 1 ? (at) => at.slice(0, 10) : (at) => at.slice(5, 10);
}

/** A tooltip's props: the bucket as the tables write it, each value through `value` (formatMoney, formatNumber). */
export function tooltipFormat(bucket: Bucket, value: (amount: number) => string) {
  return {
    separator: ': ',
    labelFormatter: (label: ReactNode) => (typeof label === 'string' ? bucketLabel(label, bucket) : label),
    formatter: (amount: unknown) => (typeof amount === 'number' ? value(amount) : (amount as ReactNode)),
  };
}
