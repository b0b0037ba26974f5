'use client';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { DailyUsage, OperationUsage } from '@/server/domain/reports/overview';

// Charts carry an aria-label summary; the same numbers are in a table next to each chart.
const shortDay = (day: string) => day.slice(5);

export function UnitsPerDayChart({ data, label }: { data: DailyUsage[]; label: string }) {
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={shortDay} fontSize={12} />
          <YAxis allowDecimals={false} fontSize={12} width={48} />
          <Tooltip />
          <Legend />
          <Bar dataKey="units" name="Units charged" fill="#2f5bea" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function RequestsPerOperationChart({ data, label }: { data: OperationUsage[]; label: string }) {
  const rows = data.map((row) => ({ ...row, succeeded: row.requests - row.failed }));
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="operation" fontSize={12} />
          <YAxis allowDecimals={false} fontSize={12} width={48} />
          <Tooltip />
          <Legend />
          <Bar maxBarSize={64} dataKey="succeeded" name="Succeeded" stackId="r" fill="#1a7f45" isAnimationActive={false} />
          <Bar maxBarSize={64} dataKey="failed" name="Failed" stackId="r" fill="#b42318" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ErrorRateChart({ data, label }: { data: DailyUsage[]; label: string }) {
  const rows = data.map((row) => ({ day: row.day, rate: row.requests ? Math.round((row.failed / row.requests) * 1000) / 10 : 0 }));
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="day" tickFormatter={shortDay} fontSize={12} />
          <YAxis unit="%" domain={[0, 100]} fontSize={12} width={48} />
          <Tooltip formatter={(value) => `${String(value)}%`} />
          <Line dataKey="rate" name="Error rate" stroke="#b42318" dot={false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
