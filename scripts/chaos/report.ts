import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { InvariantResult } from './checker';
import { FAULT_KINDS, type History } from './history';
import type { ChaosOptions } from './options';
import type { Summary } from './summary';

// The published result: a table on stdout (faults by kind, calls by kind, latency under faults,
// each invariant with its violations), the JSON report (with the whole history, to study a
// failure), and one last line of a fixed form.

export interface RunReport {
  options: ChaosOptions;
  commit: string;
  startedAt: string;
  durationSeconds: number;
  quiesced: { quiet: boolean; waitedMs: number; left: Record<string, number> };
  driverErrors: { count: number; first?: string };
  /** The job webhook deliveries the receiver got: all, refused on purpose, and with a signature that did not verify. */
  webhooks: { deliveries: number; refused: number; unsigned: number };
  /** Exits of the product's processes that the run did not cause, by process. */
  crashes: Record<string, string[]>;
  logs: string;
  summary: Summary;
  invariants: InvariantResult[];
  history: History;
}

export function currentCommit(root: string): string {
  const run = (args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout?.trim() ?? '';
  const commit = run(['rev-parse', '--short', 'HEAD']) || 'unknown';
  return run(['status', '--porcelain', '--untracked-files=no']) ? `${commit} (with uncommitted changes)` : commit;
}

const pad = (cells: (string | number)[], widths: number[]) =>
  cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]!) : String(cell).padStart(widths[i]!))).join('  ');

function table(title: string, header: string[], rows: (string | number)[][]): string[] {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => String(row[i]).length)));
  return ['', title, `  ${pad(header, widths)}`, ...rows.map((row) => `  ${pad(row, widths)}`)];
}

export function violationCount(invariants: InvariantResult[]): number {
  return invariants.reduce((sum, result) => sum + result.violations.length, 0);
}

export function lastLine(report: RunReport): string {
  const faults = report.history.faults.length;
  const kinds = Object.keys(report.summary.faults).length;
  return `chaos: ${report.history.calls.length} calls, ${faults} faults of ${kinds} kinds, ${violationCount(report.invariants)} violations, seed ${report.options.seed}`;
}

export function renderTables(report: RunReport): string[] {
  const { summary } = report;
  const faults = FAULT_KINDS.map((kind) => [kind, summary.faults[kind] ?? 0]);
  return [
    `chaos run: seed ${report.options.seed}, ${report.options.minutes} min of traffic, concurrency ${report.options.concurrency}, commit ${report.commit}`,
    ...table('faults injected', ['kind', 'count'], faults),
    ...table(
      'calls',
      ['kind', 'calls', 'answered', 'refused', 'failed', 'attempts'],
      summary.calls.map((row) => [row.kind, row.calls, row.answered, row.refused, row.failed, row.attempts]),
    ),
    ...table(
      'latency under faults (ms, first attempt to last answer)',
      ['calls with', 'calls', 'p50', 'p95', 'max'],
      summary.latency.map((row) => [row.under, row.calls, row.p50, row.p95, row.max]),
    ),
    ...table(
      'invariants',
      ['invariant', 'checked', 'violations'],
      report.invariants.map((result) => [result.name, result.checked, result.violations.length]),
    ),
  ];
}

/** The first violations of each invariant, for the log (all of them are in the JSON report). */
export function renderViolations(report: RunReport, perInvariant = 10): string[] {
  const lines: string[] = [];
  for (const result of report.invariants.filter((r) => r.violations.length)) {
    lines.push('', `${result.name}: ${result.description}`);
    for (const violation of result.violations.slice(0, perInvariant)) lines.push(`  ${violation.subject}: ${violation.message}`);
    if (result.violations.length > perInvariant) lines.push(`  ... ${result.violations.length - perInvariant} more in the JSON report`);
  }
  return lines;
}

export function writeReport(report: RunReport, path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
}
