import type { CallRecord, FaultKind, History } from './history';
import { CALL_KINDS } from './history';

// What the run did, counted: faults injected by kind, calls by kind and how they ended, and the
// latency of the calls each kind of fault touched (a call's latency: from its first attempt's
// start to its last attempt's end, retries included).

export interface CallRow {
  kind: string;
  calls: number;
  answered: number;
  refused: number;
  failed: number;
  attempts: number;
}

export interface LatencyRow {
  under: string;
  calls: number;
  p50: number;
  p95: number;
  max: number;
}

export interface Summary {
  faults: Record<string, number>;
  calls: CallRow[];
  latency: LatencyRow[];
}

function outcome(call: CallRecord): 'answered' | 'refused' | 'failed' {
  const status = call.attempts.at(-1)?.status;
  if (status === undefined || status >= 500) return 'failed';
  return status < 300 ? 'answered' : 'refused';
}

const latencyOf = (call: CallRecord) => (call.attempts.length ? call.attempts.at(-1)!.endedAt - call.attempts[0]!.startedAt : 0);

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : 0;
}

function latencyRow(under: string, calls: CallRecord[]): LatencyRow {
  const times = calls.map(latencyOf).sort((a, b) => a - b);
  return { under, calls: calls.length, p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1) ?? 0 };
}

/** Calls that were running while a process was down (from the kill to its serving again). */
function during(history: History, kind: FaultKind): CallRecord[] {
  const windows = history.faults.filter((f) => f.kind === kind).map((f) => [f.at, f.until ?? f.at] as const);
  return history.calls.filter((call) => {
    if (!call.attempts.length) return false;
    const [start, end] = [call.attempts[0]!.startedAt, call.attempts.at(-1)!.endedAt];
    return windows.some(([from, to]) => start <= to && end >= from);
  });
}

export function summarize(history: History): Summary {
  const faults: Record<string, number> = {};
  for (const fault of history.faults) faults[fault.kind] = (faults[fault.kind] ?? 0) + 1;
  const calls = CALL_KINDS.map((kind) => {
    const ofKind = history.calls.filter((call) => call.kind === kind);
    const count = (which: string) => ofKind.filter((call) => outcome(call) === which).length;
    const attempts = ofKind.reduce((sum, call) => sum + call.attempts.length, 0);
    return { kind, calls: ofKind.length, answered: count('answered'), refused: count('refused'), failed: count('failed'), attempts };
  });
  const generations = history.calls.filter((call) => call.operation !== 'checkout' && call.attempts.length);
  const latency = [
    latencyRow(
      'no fault',
      generations.filter((call) => call.faults.length === 0),
    ),
  ];
  const perCall = [...new Set(generations.flatMap((call) => call.faults))].sort();
  for (const kind of perCall)
    latency.push(
      latencyRow(
        kind,
        generations.filter((call) => call.faults.includes(kind)),
      ),
    );
  for (const kind of ['app-killed', 'worker-killed', 'postgres-restarted'] as const) {
    if (faults[kind])
      latency.push(
        latencyRow(
          `during ${kind}`,
          during(history, kind).filter((call) => call.operation !== 'checkout'),
        ),
      );
  }
  return { faults, calls, latency };
}
