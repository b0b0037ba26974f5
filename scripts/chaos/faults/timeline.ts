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

async function strike(fault: TimedFault, targets: Targets): Promise<void> {
  if (fault.kind === 'postgres-restarted') return targets.restartPostgres(fault.downMs);
  const process = fault.kind === 'worker-killed' ? targets.worker : targets.instances.find((i) => i.name === fault.target)!;
  await process.kill();
  await sleep(fault.downMs);
  await process.start();
}

/** Runs the timeline against the run's processes, each fault at its time (or once the one before is over). */
export async function runTimeline(timeline: TimedFault[], targets: Targets, clock: Clock, faults: FaultLog): Promise<void> {
  for (const fault of timeline) {
    await sleep(fault.at - clock());
    const record = faults.note(fault.kind, undefined, fault.target ? `instance ${fault.target}` : undefined);
    await strike(fault, targets);
    faults.recovered(record);
  }
}
