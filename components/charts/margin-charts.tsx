'use client';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatMoney } from '../ui/format';
import { bucketTick, tooltipFormat } from './chart-format';

// Revenue and provider cost per bucket as bars, the margin as a line; the same numbers are in the table beside it.

export interface MarginPoint {
  at: string;
  revenue: number;
  cost: number;
  margin: number;
}

export function MarginChart(props: { data: MarginPoint[]; bucket: 'hour' | 'day'; label: string; currency: string }) {
  const { data, bucket, label } = props;
  const tick = bucketTick(
    bucket,
    data.map((point) => point.at),
  );
  return (
    <div className="chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="at" tickFormatter={tick} fontSize={12} />
          <YAxis fontSize={12} width={64} />
          <Tooltip {...tooltipFormat(bucket, (amount) => formatMoney(String(amount), props.currency))} />
          <Legend />
          <Bar dataKey="revenue" name="Revenue" fill="#1a7f45" isAnimationActive={false} />
          <Bar dataKey="cost" name="Provider cost" fill="#b42318" isAnimationActive={false} />
          <Line dataKey="margin" name="Margin" stroke="#344054" dot={false} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
