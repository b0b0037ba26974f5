// A preload for the product in `npm run bench`: counts the bytes V8 promotes to the old
// generation (what outlives a minor GC, freed only by a mark-compact), between two SIGUSR2s.
// The first starts V8's GC profiler; the second stops it and writes to PROMOTION_COUNTER_FILE
// the sum, over the minor collections, of the old space's growth across each ({ promotedBytes,
// minorGcs }). Idle (no signal), it does nothing. scripts/bench/promotion-sampler.mjs says who
// allocates what is promoted; this says how much.
import { renameSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { GCProfiler } from 'node:v8';

const file = process.env.PROMOTION_COUNTER_FILE;
const MINOR = new Set(['Scavenge', 'MinorMarkSweep', 'MinorMarkCompact']);
let profiler;

const oldSpace = (side) => side.heapSpaceStatistics.find((space) => space.spaceName === 'old_space')?.spaceUsedSize ?? 0;

if (file) {
  process.on('SIGUSR2', () => {
    if (!profiler) {
      profiler = new GCProfiler();
      profiler.start();
      return;
    }
    const { statistics } = profiler.stop();
    profiler = undefined;
    const minor = statistics.filter((gc) => MINOR.has(gc.gcType));
    const promotedBytes = minor.reduce((sum, gc) => sum + Math.max(0, oldSpace(gc.afterGC) - oldSpace(gc.beforeGC)), 0);
    // Written aside, then renamed: the bench waits for the file to exist and must not read it half written.
    writeFileSync(`${file}.partial`, JSON.stringify({ promotedBytes, minorGcs: minor.length }));
    renameSync(`${file}.partial`, file);
  });
}
