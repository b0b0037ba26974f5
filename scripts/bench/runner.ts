import type { ChildProcess } from 'node:child_process';
import type pg from 'pg';
import { addBatchCounts, batchSizesNote, readBatchCounts, type BatchCounts } from './batch-sizes';
import { drain, settle, writeSnapshot } from './books';
import { activityNote, databaseActivity } from './database-activity';
import { measureHandlerInProcess } from './in-process';
import { cpuByPid, cpuSpent, postgresPids } from './proc-stats';
import { stopChild } from './processes';
import { expectedAnswer, fixedRate, type Scenario } from './scenarios';
import { CONNECTIONS, DURATION_S, log, ROUNDS, runId } from './settings';
import { startProduct, type KeyName, type Stack } from './stack';
import { measure, measureWindow, rowOf, warmUp, type AnswerTally, type Load, type Measured, type Window } from './load';

// Runs scenarios one after another against a stack, each to one row, keyed by the scenario's id.

/** The paid rows' body. */
export const SUMMARY = JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' });

/** A paid call as the probes drive it against `appUrl`: text.generate with the summary, a fresh Idempotency-Key each. */
export function paidLoad(appUrl: string, key: string, load: Pick<Load, 'duration' | 'overallRate'>): Load {
  return {
    url: `${appUrl}/v1/text/generate`,
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: SUMMARY,
    freshKey: true,
    connections: 50,
    ...load,
  };
}
/** About 30 s of the local engine's speech: a WAV of ~1 MB, larger than glibc's mmap threshold. */
const SPEECH = JSON.stringify({ text: 'Idempotent requests make retries safe. '.repeat(11).trim(), output_format: 'wav' });
const COMPLETION = JSON.stringify({
  model: 'bench-model',
  messages: [{ role: 'user', content: 'Summarise the benefits of idempotent APIs in two sentences.' }],
});

export interface Results {
  rows: Map<string, Measured>;
  /** The offered rate of the fixed-rate rows, once the local path's closed loop has been measured. */
  fixedRate?: number;
  /** Per bench key: its paid answers and the requests sent to it (what its books are checked against). */
  tallies: Map<KeyName, AnswerTally>;
}

/** The tally of the key a scenario's requests pay with, if they pay (a fresh Idempotency-Key each, a body the schema takes). */
function tallyOf(results: Results, scenario: Scenario): AnswerTally | undefined {
  const key = scenario.key;
  if (key === undefined || key === 'unknown' || scenario.body === 'empty-input') return undefined;
  let tally = results.tallies.get(key);
  if (!tally) results.tallies.set(key, (tally = { paid: 0, sent: 0 }));
  return tally;
}

interface Run {
  stack: Stack;
  results: Results;
  /** The second instance, while its scenarios run. */
  quiet?: { child: ChildProcess; url: string };
}

/** The running second instance for a `quiet` scenario; stopped once a scenario needs another instance. */
async function instanceFor(run: Run, scenario: Scenario): Promise<{ pid?: number; url: string }> {
  const { stack } = run;
  if (scenario.instance !== 'quiet' && run.quiet) {
    await stopChild(run.quiet.child);
    run.quiet = undefined;
  }
  if (scenario.instance === 'quiet') {
    run.quiet ??= await startProduct(stack.baseEnv, { LOG_FORMAT: 'off', DATABASE_URL: stack.databaseUrl });
    return { pid: run.quiet.child.pid, url: run.quiet.url };
  }
  if (scenario.instance === 'floor') return { pid: stack.floor.pid, url: stack.floorUrl };
  if (scenario.instance === 'provider') return { pid: stack.provider.pid, url: stack.providerUrl };
  if (scenario.instance === 'peer') return { pid: stack.peer.pid, url: stack.peerUrl };
  return { pid: stack.app.pid, url: stack.appUrl };
}

function rateOf(run: Run, scenario: Scenario): number | undefined {
  if (scenario.load.kind !== 'open') return undefined;
  if (scenario.load.rate !== 'fixed') return scenario.load.rate;
  const { rows } = run.results;
  run.results.fixedRate ??= fixedRate(Math.min(rows.get('product')!.rps, rows.get('viaProvider')!.rps));
  return run.results.fixedRate;
}

function loadOf(run: Run, scenario: Scenario, url: string): Load {
  const headers: Record<string, string> = {};
  if (scenario.body === 'completion') headers.authorization = 'Bearer bench';
  if (scenario.instance === 'peer')
    Object.assign(headers, { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': run.stack.providerUrl });
  if (scenario.key && scenario.key !== 'unknown') headers.authorization = `Bearer ${run.stack.keys[scenario.key]}`;
  if (scenario.body !== 'none') headers['content-type'] = 'application/json';
  if (scenario.idempotency === 'stored') headers['idempotency-key'] = `bench-replay-${runId}`;
  const body = { none: undefined, summary: SUMMARY, 'empty-input': JSON.stringify({ input: '' }), completion: COMPLETION, speech: SPEECH }[
    scenario.body
  ];
  return {
    url: url + scenario.route,
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body,
    freshKey: scenario.idempotency === 'fresh',
    freshUnknownKey: scenario.key === 'unknown',
    connections: scenario.connections,
    overallRate: rateOf(run, scenario),
    promotionFile: scenario.promotion && scenario.instance === 'app' ? run.stack.appPromotionFile : undefined,
    tally: scenario.idempotency === 'fresh' ? tallyOf(run.results, scenario) : undefined,
  };
}

/** The first request of a stored key: the answer every later one replays (the only one of them that pays). */
async function storeReplay(load: Load, tally: AnswerTally | undefined): Promise<void> {
  const first = await fetch(load.url, { method: 'POST', headers: load.headers, body: load.body });
  if (first.status !== 200) throw new Error(`replay setup answered ${first.status}: ${await first.text()}`);
  if (tally) [tally.paid, tally.sent] = [tally.paid + 1, tally.sent + 1];
}

async function inProcessRow(run: Run, scenario: Scenario): Promise<Measured> {
  const { stack } = run;
  log(`${scenario.name}: warm-up 3s, measuring ${DURATION_S}s`);
  const pgStart = cpuByPid(postgresPids(stack.postmasterPid));
  const handler = await measureHandlerInProcess({
    databaseUrl: stack.databaseUrl,
    apiKey: stack.keys.inProcess,
    body: SUMMARY,
    seconds: DURATION_S,
    concurrency: CONNECTIONS,
    databaseCpuMs: () => cpuSpent(pgStart, cpuByPid(postgresPids(stack.postmasterPid))),
  });
  const tally = tallyOf(run.results, scenario);
  if (tally) [tally.paid, tally.sent] = [tally.paid + handler.tally.paid, tally.sent + handler.tally.sent];
  return {
    name: scenario.name,
    rps: handler.rps,
    p50: Number.NaN,
    p99: Number.NaN,
    statuses: handler.statuses,
    errors: 0,
    cpuServer: handler.cpuMs,
    cpuPg: handler.databaseCpuMs,
  };
}

async function runScenario(run: Run, scenario: Scenario): Promise<Measured> {
  const { stats, postmasterPid } = run.stack;
  if (scenario.before === 'settle') await settle();
  if (scenario.before === 'drain') await drain(stats);
  if (scenario.before === 'checkpoint') await checkpoint(stats);
  const target = await instanceFor(run, scenario);
  if (scenario.load.kind === 'in-process') return { ...(await inProcessRow(run, scenario)), note: scenario.note };
  const load = loadOf(run, scenario, target.url);
  if (scenario.idempotency === 'stored') await storeReplay(load, tallyOf(run.results, scenario));
  const name = load.overallRate ? `${scenario.name} @ ${load.overallRate}/s` : scenario.name;
  // The bench's database starts empty: until autovacuum first analyzes the tables that grow (a
  // minute or more), PostgreSQL plans the paid path's statements for empty tables, and spent 2.5x
  // the CPU per call on the first paying rows that it spent on the same rows run again later. A
  // database in use has its statistics: ANALYZE after each warm-up measures that one.
  const analyze = () => stats.query('ANALYZE');
  if (scenario.assert !== 'no-db-write')
    return withDatabaseActivity(run.stack, ' (warm-up included)', () =>
      measureWithBatches(run, scenario, () => measure(name, load, target.pid, postmasterPid, analyze)),
    );
  await settle();
  const before = await writeSnapshot(stats);
  const row = await measure(name, load, target.pid, postmasterPid);
  await settle();
  const after = await writeSnapshot(stats, before.second);
  return { ...row, note: before.text === after.text ? 'no db write' : `DB CHANGED: ${before.text} -> ${after.text}` };
}

/**
 * A database in use recycles its WAL segments at each checkpoint. The bench's, a few minutes old,
 * has none to recycle yet and creates each new 16 MB segment, zero-filled and flushed with the WAL
 * write lock held: every commit waited for it (37 ms on this machine's disk), every 8 to 12 s at R.
 * A checkpoint before the fixed-rate rows leaves the WAL written so far to be recycled, as a
 * running database's is; each row's log line counts the segments it still created.
 */
async function checkpoint(stats: pg.Client): Promise<void> {
  await settle();
  await stats.query('CHECKPOINT');
  const { rows } = await stats.query<{ segments: number }>('SELECT count(*)::int AS segments FROM pg_ls_waldir()');
  log(`checkpoint: ${rows[0]!.segments} WAL segments on disk`);
}

/** Runs `work` and logs what PostgreSQL did meanwhile (database-activity.ts). */
async function withDatabaseActivity<T>(stack: Stack, label: string, work: () => Promise<T>): Promise<T> {
  const before = await databaseActivity(stack.stats, stack.postmasterPid);
  const result = await work();
  log(`  PostgreSQL meanwhile${label}: ${activityNote(before, await databaseActivity(stack.stats, stack.postmasterPid))}`);
  return result;
}

/** Whether a scenario's requests pay on the product (its rows note the batch sizes). */
const paysOnApp = (scenario: Scenario) => scenario.instance === 'app' && scenario.idempotency === 'fresh';

/** A row's note: the scenario's own, and the batch sizes its paid calls' statements wrote. */
const noteOf = (scenario: Scenario, batches: string | undefined) => [scenario.note, batches].filter(Boolean).join('; ') || undefined;

/** A row of the product that pays, noted with the sizes of the batches its statements wrote meanwhile. */
async function measureWithBatches(run: Run, scenario: Scenario, work: () => Promise<Measured>): Promise<Measured> {
  const pays = paysOnApp(scenario);
  const before = pays ? await readBatchCounts(run.stack.appUrl) : undefined;
  const row = await work();
  const batches = pays ? batchSizesNote(before, await readBatchCounts(run.stack.appUrl)) : undefined;
  return { ...row, note: noteOf(scenario, batches) };
}

/**
 * Scenarios compared with each other (`alternate`): each warmed up in turn, the database analyzed
 * once, then ROUNDS windows each, in order and in reverse, so the machine's drift falls on all alike.
 */
async function runAlternating(run: Run, group: Scenario[]): Promise<void> {
  const { stack } = run;
  const entries: { scenario: Scenario; pid?: number; load: Load; windows: Window[]; batches?: BatchCounts }[] = [];
  for (const scenario of group) {
    if (scenario.before || scenario.assert || scenario.load.kind !== 'closed') throw new Error(`${scenario.id} cannot alternate`);
    const target = await instanceFor(run, scenario);
    const load = { ...loadOf(run, scenario, target.url), duration: DURATION_S / ROUNDS };
    await warmUp(scenario.name, load);
    entries.push({ scenario, pid: target.pid, load, windows: [], batches: paysOnApp(scenario) ? new Map() : undefined });
  }
  await stack.stats.query('ANALYZE'); // as after each warm-up of runScenario
  for (let round = 0; round < ROUNDS; round++) {
    for (const entry of round % 2 === 0 ? entries : [...entries].reverse()) {
      const before = entry.batches ? await readBatchCounts(stack.appUrl) : undefined;
      const label = ` (window ${round + 1} of ${ROUNDS})`;
      entry.windows.push(
        await withDatabaseActivity(stack, '', () => measureWindow(entry.scenario.name, entry.load, entry.pid, stack.postmasterPid, label)),
      );
      if (entry.batches) addBatchCounts(entry.batches, before, await readBatchCounts(stack.appUrl));
    }
  }
  for (const { scenario, pid, windows, batches } of entries) {
    const note = noteOf(scenario, batches && batchSizesNote(new Map(), batches));
    run.results.rows.set(scenario.id, { ...rowOf(scenario.name, windows, pid), note, expected: expectedAnswer(scenario) });
  }
}

/** Runs `scenarios` in order, adding a row each to `results`; neighbouring `alternate` ones together. */
export async function runScenarios(
  stack: Stack,
  scenarios: Scenario[],
  results: Results = { rows: new Map(), tallies: new Map() },
): Promise<Results> {
  const run: Run = { stack, results };
  for (let index = 0; index < scenarios.length;) {
    let end = index;
    while (scenarios[end]?.alternate) end++;
    if (end > index) {
      await runAlternating(run, scenarios.slice(index, end));
      index = end;
    } else {
      const scenario = scenarios[index]!;
      results.rows.set(scenario.id, { ...(await runScenario(run, scenario)), expected: expectedAnswer(scenario) });
      index++;
    }
  }
  if (run.quiet) await stopChild(run.quiet.child);
  return results;
}
