'use client';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DailyUsage } from '@/server/trpc/outputs';
import { formatNumber } from '../ui/format';
import { bucketTick, tooltipFormat } from './chart-format';

// Charts carry an aria-label summary; the same numbers are in a table next to each chart.

export function UnitsPerDayChart({ data, label }: { data: DailyUsage[]; label: string }) {
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="day"
            tickFormatter={bucketTick(
              'day',
              data.map((row) => row.day),
            )}
            fontSize={12}
          />
          <YAxis allowDecimals={false} fontSize={12} width={48} />
          <Tooltip {...tooltipFormat('day', formatNumber)} />
          <Legend />
          <Bar dataKey="units" name="Units charged" fill="#2f5bea" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
