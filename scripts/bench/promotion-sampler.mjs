// A preload for the product (BENCH_NODE_ARGS="--import ./scripts/bench/promotion-sampler.mjs"):
// V8's sampling heap profiler, keeping only objects that outlived a minor GC (promoted to the old
// generation, which only a mark-compact frees). Sampling starts PROMOTION_SAMPLE_AFTER_S seconds
// after start (default 40, past the start-up's own allocations); on SIGTERM (the bench's stop) the
// profile is written to PROMOTION_SAMPLE_DIR (default the system's temporary folder) as
// promoted-<pid>.heapprofile, which Chrome DevTools' Memory tab opens.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';

const session = new Session();
session.connect();
const afterMs = Number(process.env.PROMOTION_SAMPLE_AFTER_S ?? 40) * 1000;
const file = join(process.env.PROMOTION_SAMPLE_DIR ?? tmpdir(), `promoted-${process.pid}.heapprofile`);
let sampling = false;

const options = { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false };
setTimeout(() => session.post('HeapProfiler.startSampling', options, (error) => (sampling = !error)), afterMs).unref();

// An in-thread session answers synchronously, so the file is written before the product's own
// SIGTERM handler starts its drain.
process.prependListener('SIGTERM', () => {
  if (!sampling) return;
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) writeFileSync(file, JSON.stringify(result.profile));
  });
});
