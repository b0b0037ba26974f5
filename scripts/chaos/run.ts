import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { ensureBuild } from '../lib/ensure-build';
import { checkBooks } from './checker';
import { readBooks } from './checker/books';
import { callPlanner } from './driver/plan';
import type { DriverContext } from './driver/context';
import { drive } from './driver/index';
import { readJob } from './driver/video';
import { FaultLog } from './faults/fault-log';
import { faultTimeline, runTimeline } from './faults/timeline';
import type { History } from './history';
import type { ChaosOptions } from './options';
import { waitUntilQuiet } from './quiesce';
import { Random } from './random';
import { currentCommit, type RunReport } from './report';
import { startStack, type Stack } from './stack/index';
import { monitorKeys } from './stack/monitor';
import { keyPlans } from './stack/packages';
import { ROOT } from './stack/processes';
import { summarize } from './summary';

// One run: the product and its fakes started, the seeded traffic and the timeline of process
// faults together, everything left to settle, then the books read and checked.

/** How long a call that is still retrying when the traffic stops may go on. */
const GIVE_UP_AFTER_MS = 60_000;
const QUIET_TIMEOUT_MS = 180_000;

function newHistory(seed: number, stack: Stack, faults: FaultLog): History {
  const keys = stack.keys.map(({ secret: _secret, webhookSecret: _webhook, ...key }) => key);
  return { seed, keys, calls: [], engineCalls: stack.chat.engineCalls, payments: [], faults: faults.records, samples: [] };
}

async function traffic(
  ctx: DriverContext,
  stack: Stack,
  options: ChaosOptions,
  log: (line: string) => void,
): Promise<RunReport['driverErrors']> {
  const trafficMs = options.minutes * 60_000;
  const start = ctx.clock();
  const timeline = faultTimeline(options.seed, trafficMs).map((fault) => ({ ...fault, at: fault.at + start }));
  const targets = { instances: stack.instances, worker: stack.worker, restartPostgres: (ms: number) => stack.postgres.restart(ms) };
  const monitor = monitorKeys(
    stack.postgres.url,
    stack.keys.map((key) => key.id),
  );
  const progress = setInterval(() => log(`${ctx.history.calls.length} calls, ${ctx.faults.records.length} faults so far`), 20_000);
  const [errors] = await Promise.all([
    drive(ctx, callPlanner(options.seed, keyPlans()), options.concurrency, stack.saleVersions),
    runTimeline(timeline, targets, ctx.clock, ctx.faults),
  ]);
  clearInterval(progress);
  ctx.history.samples = await monitor.stop();
  return errors;
}

/** Each call's record names every fault it met, those its fakes injected too. */
function gatherFaults(history: History): void {
  const calls = new Map(history.calls.map((call) => [call.id, call]));
  for (const fault of history.faults) {
    const call = fault.callId ? calls.get(fault.callId) : undefined;
    if (call && !call.faults.includes(fault.kind)) call.faults.push(fault.kind);
  }
}

async function readTheBooks(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await readBooks(client);
  } finally {
    await client.end();
  }
}

export function logDirFor(options: ChaosOptions): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return join(ROOT, '.data', 'chaos', `seed-${options.seed}-${stamp}`);
}

export async function runChaos(options: ChaosOptions, logDir: string, log: (line: string) => void): Promise<RunReport> {
  const startedAt = new Date();
  const commit = currentCommit(ROOT); // the code this run runs, whatever is committed while it does
  const clock = () => Date.now() - startedAt.getTime();
  const faults = new FaultLog(clock);
  mkdirSync(logDir, { recursive: true });
  ensureBuild(ROOT, process.env.NEXT_DIST_DIR || '.next', log);
  const stack = await startStack(clock, faults, logDir, log);
  const history = newHistory(options.seed, stack, faults);
  const stopAt = clock() + options.minutes * 60_000;
  const keys = new Map(stack.keys.map((key) => [key.name, key]));
  const ctx: DriverContext = {
    seed: options.seed,
    clock,
    faults,
    instances: stack.instances,
    keys,
    chat: stack.chat,
    stripe: stack.stripe,
    webhooks: stack.webhooks,
    history,
    stopAt,
    giveUpAt: stopAt + GIVE_UP_AFTER_MS,
  };
  log(`traffic for ${options.minutes} min from ${options.concurrency} clients`);
  const driverErrors = await traffic(ctx, stack, options, log);
  log('waiting for the product to settle what it was left with');
  const quiesced = await waitUntilQuiet(stack.postgres.url, QUIET_TIMEOUT_MS);
  const random = Random.of(options.seed, 'final');
  for (const call of history.calls.filter((c) => c.job)) await readJob(ctx, call, keys.get(call.key)!.secret, random);
  gatherFaults(history);
  const invariants = checkBooks(history, await readTheBooks(stack.postgres.url));
  return {
    options,
    commit,
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round(clock() / 1000),
    quiesced,
    driverErrors,
    webhooks: {
      deliveries: stack.webhooks.deliveries.length,
      refused: stack.webhooks.deliveries.filter((delivery) => delivery.status >= 300).length,
      unsigned: stack.webhooks.deliveries.filter((delivery) => !delivery.signed).length,
    },
    crashes: Object.fromEntries([...stack.instances, stack.worker].filter((p) => p.crashes.length).map((p) => [p.name, p.crashes])),
    logs: logDir,
    summary: summarize(history),
    invariants,
    history,
  };
}
