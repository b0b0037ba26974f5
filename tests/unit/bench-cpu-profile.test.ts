import { describe, expect, it } from 'vitest';
import { busyWindow, topSelfTime, type CpuProfile } from '../../scripts/bench/cpu-profile';

const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: '0' });

/** (root) → handle (app.js:10) → parse (app.js:20); (idle); (garbage collector). Samples 1 ms apart from t = 1000 µs. */
function profile(samples: number[]): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
      { id: 2, callFrame: frame('handle', 'file:///srv/app.js', 9), children: [3] },
      { id: 3, callFrame: frame('parse', 'file:///srv/app.js', 19) },
      { id: 4, callFrame: frame('(idle)') },
      { id: 5, callFrame: frame('(garbage collector)') },
    ],
    startTime: 0,
    endTime: 1000 + samples.length * 1000,
    samples,
    timeDeltas: samples.map(() => 1000),
  };
}

describe('a CPU profile cut to a window of load', () => {
  it('keeps the busy samples taken in the window, laid end to end with their own durations', () => {
    // samples at 1000, 2000, ..., 8000 µs
    const cut = busyWindow(profile([4, 2, 3, 4, 4, 3, 5, 2]), 2000, 7000);
    expect(cut.samples).toEqual([2, 3, 3, 5]);
    expect(cut.timeDeltas).toEqual([0, 1000, 1000, 1000]);
    expect(cut.startTime).toBe(2000);
    expect(cut.endTime - cut.startTime).toBe(4000);
    expect(Object.fromEntries(cut.nodes.map((node) => [node.id, node.hitCount]))).toEqual({ 1: 0, 2: 1, 3: 2, 4: 0, 5: 1 });
  });

  it('gives a sample the time to the next one, however long, and the last one the time to the end', () => {
    const uneven: CpuProfile = { ...profile([2, 3, 2]), timeDeltas: [1000, 500, 2500], endTime: 4100 };
    // at 1000 (500 µs), 1500 (2500 µs), 4000 (100 µs)
    const cut = busyWindow(uneven, 0, 5000);
    expect(cut.timeDeltas).toEqual([0, 500, 2500]);
    expect(cut.endTime - cut.startTime).toBe(3100);
  });

  it('names the functions with the most self time, with their file and 1-based line', () => {
    const top = topSelfTime(busyWindow(profile([5, 2, 3, 3, 4, 3, 2, 3, 3]), 0, 10_000), 2);
    expect(top).toEqual([
      { frame: 'parse app.js:20', share: 0.625 },
      { frame: 'handle app.js:10', share: 0.25 },
    ]);
  });
});
