import { describe, expect, it } from 'vitest';
import { schedByThread, schedSpent, type SchedTime } from '../../scripts/bench/proc-stats';

const times = (entries: Record<string, [number, number]>) =>
  new Map<string, SchedTime>(Object.entries(entries).map(([tid, [runUs, waitUs]]) => [tid, { runUs, waitUs }]));

describe("the bench's scheduler times", () => {
  it('adds up what each thread spent between two samples: a new thread from 0, an exited one lost', () => {
    const before = times({ '1': [1000, 200], '2': [500, 50], '3': [700, 70] });
    const after = times({ '1': [1600, 260], '2': [900, 150], '4': [30, 5] });
    expect(schedSpent(before, after)).toEqual({ runUs: 600 + 400 + 30, waitUs: 60 + 100 + 5 });
  });

  it("reads this process's threads, and only its main thread when asked", () => {
    const all = schedByThread([process.pid]);
    const main = schedByThread([process.pid], true);
    expect([...main.keys()]).toEqual([String(process.pid)]);
    expect(all.get(String(process.pid))!.runUs).toBeGreaterThan(0);
    expect(all.size).toBeGreaterThanOrEqual(main.size);
    expect(schedByThread([2 ** 22 + 1]).size).toBe(0); // no such process
  });
});
