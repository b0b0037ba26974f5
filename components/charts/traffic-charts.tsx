'use client';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TrafficBucket, TrafficOverview } from '@/server/trpc/outputs';
import { formatNumber } from '../ui/format';
import { bucketTick, tooltipFormat } from './chart-format';

// Charts carry an aria-label summary; the same numbers are in the tables beside them.
/** The legend names the series in the order they are stacked, bottom up (recharts sorts it alphabetically). */
const STACK_ORDER = ['succeeded', 'failed', 'left', 'refused'];
const COLORS = { succeeded: '#1a7f45', failed: '#b42318', left: '#667085', refused: '#b54708', server: '#7a271a' };

export function TrafficChart({ data, bucket, label }: { data: TrafficBucket[]; bucket: 'hour' | 'day'; label: string }) {
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="at"
            tickFormatter={bucketTick(
              bucket,
              data.map((row) => row.at),
            )}
            fontSize={12}
          />
          <YAxis allowDecimals={false} fontSize={12} width={48} />
          <Tooltip {...tooltipFormat(bucket, formatNumber)} />
          <Legend itemSorter={(item) => STACK_ORDER.indexOf(String(item.dataKey))} />
          <Bar dataKey="succeeded" name="Succeeded" stackId="t" fill={COLORS.succeeded} isAnimationActive={false} />
          <Bar dataKey="failed" name="Failed" stackId="t" fill={COLORS.failed} isAnimationActive={false} />
          <Bar dataKey="left" name="Left by client" stackId="t" fill={COLORS.left} isAnimationActive={false} />
          <Bar dataKey="refused" name="Refused" stackId="t" fill={COLORS.refused} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/**
 * A bar per row, its name on the left: as tall as the rows need, so that every row's name is drawn (in a fixed
 * height recharts drops the names that would overlap, the tallest bars' among them).
 */
const rowsHeight = (rows: number) => ({ height: Math.max(160, rows * 30 + 48) });

export function RefusedByCodeChart({ data, label }: { data: TrafficOverview['refused_by_code']; label: string }) {
  const rows = data.map((row) => ({ name: `${row.status} ${row.code}`, count: row.count }));
  return (
    <div className="chart" role="img" aria-label={label} style={rowsHeight(rows.length)}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart accessibilityLayer={false} data={rows} layout="vertical" margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} fontSize={12} />
          <YAxis type="category" dataKey="name" fontSize={12} width={170} interval={0} />
          <Tooltip />
          <Bar dataKey="count" name="Refused" fill={COLORS.refused} maxBarSize={28} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function FailedByOperationChart({ data, label }: { data: TrafficOverview['failed_by_operation']; label: string }) {
  return (
    <div className="chart" role="img" aria-label={label} style={rowsHeight(data.length + 1)}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart accessibilityLayer={false} data={data} layout="vertical" margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} fontSize={12} />
          <YAxis type="category" dataKey="operation" fontSize={12} width={130} interval={0} />
          <Tooltip />
          <Legend />
          <Bar maxBarSize={28} dataKey="provider" name="Provider" stackId="f" fill={COLORS.failed} isAnimationActive={false} />
          <Bar maxBarSize={28} dataKey="server" name="Server" stackId="f" fill={COLORS.server} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
