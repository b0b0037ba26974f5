import { describe, expect, it } from 'vitest';
import { bucketStarts, resolveTimeRange } from '@/server/domain/reports/time-range';
import { rangeFromParams } from '@/components/ui/time-range-picker';

describe('resolveTimeRange', () => {
  const now = new Date('2026-03-10T15:20:00.000Z');

  it('counts 24 hours back from the end of the current hour, and the days presets in whole UTC days, today included', () => {
    const day = resolveTimeRange({ range: '24h' }, now);
    expect([day.from.toISOString(), day.to.toISOString(), day.bucket]).toEqual([
      '2026-03-09T16:00:00.000Z',
      '2026-03-10T16:00:00.000Z',
      'hour',
    ]);
    expect(bucketStarts(day)).toHaveLength(24);
    const week = resolveTimeRange({ range: '7d' }, now);
    expect([week.from.toISOString(), week.to.toISOString(), week.bucket]).toEqual([
      '2026-03-04T00:00:00.000Z',
      '2026-03-11T00:00:00.000Z',
      'day',
    ]);
    // The days the daily figures (usageByDay) and the usage list's day filters count: no part-days at either end.
    expect(bucketStarts(week).map((d) => d.toISOString().slice(0, 10))).toEqual([
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    expect(resolveTimeRange({}, now).label).toBe('the last 14 days');
  });

  it('takes whole UTC days for a custom range, both ends included, and refuses a backwards or malformed one', () => {
    const range = resolveTimeRange({ range: 'custom', from: '2026-02-27', to: '2026-03-01' }, now);
    expect([range.from.toISOString(), range.to.toISOString(), range.bucket]).toEqual([
      '2026-02-27T00:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
      'day',
    ]);
    expect(bucketStarts(range).map((d) => d.toISOString().slice(0, 10))).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(resolveTimeRange({ range: 'custom', from: '2026-03-01', to: '2026-03-01' }, now).bucket).toBe('hour');
    expect(() => resolveTimeRange({ range: 'custom', from: '2026-03-02', to: '2026-03-01' }, now)).toThrow('to must not be before from');
    expect(() => resolveTimeRange({ range: 'custom', from: '2026-02-30', to: '2026-03-01' }, now)).toThrow('from must be a day');
    expect(() => resolveTimeRange({ range: 'custom', from: '2024-01-01', to: '2026-03-01' }, now)).toThrow('at most 366 days');
  });
});

describe("the dashboard pages' time range (rangeFromParams)", () => {
  it('applies a valid custom range, and for one that cannot apply shows the default, keeping what was asked and saying why by field', () => {
    expect(rangeFromParams({ range: 'custom', from: '2026-01-01', to: '2026-01-31' }).value).toEqual({
      range: 'custom',
      from: '2026-01-01',
      to: '2026-01-31',
    });
    // 2025-01-01 to 2026-12-06 spans 705 days: it crashed the pages with a 500 (outside audit).
    const tooLong = rangeFromParams({ range: 'custom', from: '2025-01-01', to: '2026-12-06' });
    expect(tooLong).toEqual({
      value: {},
      asked: { range: 'custom', from: '2025-01-01', to: '2026-12-06' },
      problems: { to: 'a range spans at most 366 days; showing the last 14 days' },
    });
    expect(() => resolveTimeRange(tooLong.value)).not.toThrow();
    expect(rangeFromParams({ range: 'custom', from: '2026-12-06', to: '2026-11-01' }).problems).toEqual({
      to: 'to must not be before from; showing the last 14 days',
    });
    expect(rangeFromParams({ range: 'custom', from: '2026-02-30' }).problems).toEqual({
      from: 'from must be a day such as 2026-01-31; showing the last 14 days',
      to: 'to must be a day such as 2026-01-31; showing the last 14 days',
    });
    expect(rangeFromParams({ range: '7d', from: 'x' })).toEqual({ value: { range: '7d' }, asked: { range: '7d' }, problems: {} });
  });
});
