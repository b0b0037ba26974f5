import type { FaultKind } from '../history';
import { Random } from '../random';
import type { ProductProcess } from '../stack/processes';
import type { Clock, FaultLog } from './fault-log';

// The faults that hit whole processes, at times the seed chooses: an app instance or the worker
// SIGKILLed (and started again after a pause), PostgreSQL restarted under the load. One every
// twenty seconds or so of traffic, and each kind at least once in every run; one at a time, each
// over (the process serving again) before the next begins.

export type ProcessFault = Extract<FaultKind, 'app-killed' | 'worker-killed' | 'postgres-restarted'>;

export interface TimedFault {
  at: number;
  kind: ProcessFault;
  /** The instance an app kill hits. */
  target?: string;
  /** How long the process stays down before it is started again. */
  downMs: number;
}

const KINDS: ProcessFault[] = ['app-killed', 'worker-killed', 'postgres-restarted'];

export function faultTimeline(seed: number, trafficMs: number): TimedFault[] {
  const random = Random.of(seed, 'timeline');
  const count = Math.max(KINDS.length, Math.round(trafficMs / 20_000));
  const kinds = [...random.shuffle(KINDS), ...Array.from({ length: count - KINDS.length }, () => random.pick(KINDS))];
  const slot = trafficMs / (count + 1);
  return kinds.map((kind, i) => ({
    at: Math.round(slot * (i + 0.5) + random.float() * slot),
    kind,
    ...(kind === 'app-killed' ? { target: random.pick(['a', 'b']) } : {}),
    downMs: random.int(300, 2500),
  }));
}

export interface Targets {
  instances: ProductProcess[];
  worker: ProductProcess;
  restartPostgres(downMs: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Waits until `ready` holds (checked every 200 ms). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await sleep(200);
}

/**
 * What must hold before a fault strikes: an app instance is killed only while the other one
 * serves (one instance always answers, as behind a load balancer), the worker only once it runs.
 * (A process starting while PostgreSQL restarts may exit: it is started again, as a supervisor would.)
 */
function readyFor(fault: TimedFault, targets: Targets): () => boolean {
  if (fault.kind === 'postgres-restarted') return () => true;
  if (fault.kind === 'worker-killed') return () => targets.worker.up;
  return () => targets.instances.every((instance) => instance.up);
}

/**
 * Runs the timeline against the run's processes, each fault at its time (or once what it needs
 * holds); a killed process is started again after its pause while the timeline goes on. Resolves
 * once every process serves again.
 */
export async function runTimeline(timeline: TimedFault[], targets: Targets, clock: Clock, faults: FaultLog): Promise<void> {
  const recoveries: Promise<void>[] = [];
  let failed: unknown;
  for (const fault of timeline) {
    await sleep(fault.at - clock());
    await until(readyFor(fault, targets));
    const record = faults.note(fault.kind, undefined, fault.target ? `instance ${fault.target}` : undefined);
    if (fault.kind === 'postgres-restarted') {
      await targets.restartPostgres(fault.downMs);
      faults.recovered(record);
      continue;
    }
    const process = fault.kind === 'worker-killed' ? targets.worker : targets.instances.find((i) => i.name === fault.target)!;
    await process.kill();
    const recovery = sleep(fault.downMs).then(() => process.start());
    recoveries.push(recovery.then(() => faults.recovered(record)).catch((error: unknown) => void (failed ??= error)));
  }
  await Promise.all(recoveries);
  if (failed) throw failed;
}
