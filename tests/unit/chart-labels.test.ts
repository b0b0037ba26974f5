import { isValidElement, type ReactElement, type ReactNode } from 'react';
import { Bar, BarChart, Legend, Tooltip, XAxis } from 'recharts';
import { describe, expect, it } from 'vitest';
import { MarginChart } from '@/components/charts/margin-charts';
import { TrafficChart } from '@/components/charts/traffic-charts';

// The Overview's and the package page's chart tooltips showed `2026-12-07T00:00:00.000Z` and
// `Revenue : 0` where the cards say $0.00, and their axes `12-07` over a range spanning two years
// (dashboard audit): the charts write days, hours and amounts as the tables do.

type Props = Record<string, unknown> & { children?: ReactNode };

/** The first element of `type` in a component's element tree (the charts are plain functions of their props). */
function find(node: ReactNode, type: unknown): ReactElement<Props> | undefined {
  if (Array.isArray(node)) return node.map((child: ReactNode) => find(child, type)).find(Boolean);
  if (!isValidElement<Props>(node)) return undefined;
  if (node.type === type) return node;
  return find(node.props.children, type);
}

const label = (tooltip: ReactElement<Props>, at: string) => (tooltip.props.labelFormatter as (label: string) => ReactNode)(at);
const value = (tooltip: ReactElement<Props>, amount: number) => (tooltip.props.formatter as (value: number) => ReactNode)(amount);
const tick = (axis: ReactElement<Props>, at: string) => (axis.props.tickFormatter as (at: string) => string)(at);

const point = (at: string) => ({ at, revenue: 0, cost: 0.0012, margin: -0.0012 });
const margin = (at: string[], bucket: 'hour' | 'day' = 'day') =>
  MarginChart({ data: at.map(point), bucket, label: 'margin', currency: 'USD' }) as ReactNode;

describe('the margin chart (Overview, package page)', () => {
  it("writes a tooltip's day or hour as the tables do, and its amounts as money", () => {
    const tooltip = find(margin(['2026-12-07T00:00:00.000Z']), Tooltip)!;
    expect(label(tooltip, '2026-12-07T00:00:00.000Z')).toBe('2026-12-07');
    expect(value(tooltip, 0)).toBe('$0.00');
    expect(value(tooltip, 0.0012)).toBe('$0.0012');
    expect(tooltip.props.separator).toBe(': ');
    const hourly = find(margin(['2026-12-07T13:00:00.000Z'], 'hour'), Tooltip)!;
    expect(label(hourly, '2026-12-07T13:00:00.000Z')).toBe('2026-12-07 13:00:00 UTC');
  });

  it('adds the year to the axis when the range spans more than one year', () => {
    const across = ['2025-12-31T00:00:00.000Z', '2026-01-01T00:00:00.000Z'];
    expect(tick(find(margin(across), XAxis)!, across[1]!)).toBe('2026-01-01');
    expect(tick(find(margin(['2026-12-07T00:00:00.000Z']), XAxis)!, '2026-12-07T00:00:00.000Z')).toBe('12-07');
  });
});

describe('the traffic chart (Overview)', () => {
  it('writes the day and the counts as the tables do, with the year over two years', () => {
    const rows = ['2025-12-31T00:00:00.000Z', '2026-01-01T00:00:00.000Z'].map((at) => ({
      at,
      succeeded: 1200,
      failed: 0,
      left: 0,
      refused: 0,
    }));
    const chart = TrafficChart({ data: rows, bucket: 'day', label: 'traffic' }) as ReactNode;
    const tooltip = find(chart, Tooltip)!;
    expect(label(tooltip, rows[0]!.at)).toBe('2025-12-31');
    expect(value(tooltip, 1200)).toBe('1,200');
    expect(tick(find(chart, XAxis)!, rows[1]!.at)).toBe('2026-01-01');
  });

  it('names its series in the legend in the order they are stacked (review: alphabetical, Failed first)', () => {
    const chart = TrafficChart({ data: [], bucket: 'day', label: 'traffic' }) as ReactNode;
    const stacked = (find(chart, BarChart)!.props.children as ReactNode[])
      .flat()
      .filter((child) => isValidElement<Props>(child) && child.type === Bar);
    const keys = stacked.map((bar) => String((bar as ReactElement<Props>).props.dataKey));
    expect(keys).toEqual(['succeeded', 'failed', 'left', 'refused']);
    const sorter = find(chart, Legend)!.props.itemSorter as (item: { dataKey: string }) => number;
    expect([...keys].reverse().sort((a, b) => sorter({ dataKey: a }) - sorter({ dataKey: b }))).toEqual(keys);
  });
});
