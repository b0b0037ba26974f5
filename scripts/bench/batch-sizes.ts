import { METRICS_TOKEN } from './settings';

// The batch sizes the product's paid path wrote during a row (server/domain/billing/batched-writes.ts):
// the `wgs_db_batch_size` histogram of its /metrics, read before and after the row.

/** Per batch function: statements written and calls they wrote, so far. */
export type BatchCounts = Map<string, { statements: number; calls: number }>;

const SHORT_NAMES: Record<string, string> = { wgs_batch_reserve_paid: 'reserve', wgs_batch_capture_hold: 'capture' };

/** The product's /metrics exposition now; undefined when its metrics are off. */
export async function productMetrics(appUrl: string): Promise<string | undefined> {
  const response = await fetch(`${appUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return response.status === 200 ? response.text() : undefined;
}

/** The product's counts now; undefined when its metrics are off. */
export async function readBatchCounts(appUrl: string): Promise<BatchCounts | undefined> {
  const metrics = await productMetrics(appUrl);
  if (metrics === undefined) return undefined;
  const counts: BatchCounts = new Map();
  for (const line of metrics.split('\n')) {
    const match = /^wgs_db_batch_size_(sum|count)\{statement="([^"]+)"\} (\S+)$/.exec(line);
    if (!match) continue;
    const entry = counts.get(match[2]!) ?? { statements: 0, calls: 0 };
    if (match[1] === 'sum') entry.calls = Number(match[3]);
    else entry.statements = Number(match[3]);
    counts.set(match[2]!, entry);
  }
  return counts;
}

/** "calls per statement: reserve 3.1, capture 2.7" over a row; undefined when nothing was written. */
export function batchSizesNote(before: BatchCounts | undefined, after: BatchCounts | undefined): string | undefined {
  if (!before || !after) return undefined;
  const parts: string[] = [];
  for (const [name, { statements, calls }] of after) {
    const earlier = before.get(name) ?? { statements: 0, calls: 0 };
    const written = statements - earlier.statements;
    if (written > 0) parts.push(`${SHORT_NAMES[name] ?? name} ${((calls - earlier.calls) / written).toFixed(1)}`);
  }
  return parts.length ? `calls per statement: ${parts.join(', ')}` : undefined;
}

/** Adds what was written between `before` and `after` to `total` (a row measured in several windows). */
export function addBatchCounts(total: BatchCounts, before: BatchCounts | undefined, after: BatchCounts | undefined): void {
  if (!before || !after) return;
  for (const [name, { statements, calls }] of after) {
    const earlier = before.get(name) ?? { statements: 0, calls: 0 };
    const sum = total.get(name) ?? { statements: 0, calls: 0 };
    total.set(name, { statements: sum.statements + statements - earlier.statements, calls: sum.calls + calls - earlier.calls });
  }
}
