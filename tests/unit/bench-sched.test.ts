import { describe, expect, it } from 'vitest';
import { busyShare, machineCpu, parseMachineCpu, schedByThread, schedSpent, type SchedTime } from '../../scripts/bench/proc-stats';

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

describe("the machine's busy share", () => {
  const stat = (user: number, idle: number, iowait: number, steal: number) =>
    `cpu  ${user} 10 300 ${idle} ${iowait} 20 30 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n`;

  it('counts idle and iowait as idle, and everything else (steal too) as busy', () => {
    expect(parseMachineCpu(stat(1000, 500, 100, 40))).toEqual({ total: 1000 + 10 + 300 + 500 + 100 + 20 + 30 + 40, idle: 600 });
    const before = parseMachineCpu(stat(1000, 500, 100, 40));
    const after = parseMachineCpu(stat(1600, 700, 150, 90)); // +600 user, +250 idle, +50 steal
    expect(busyShare(before, after)).toBeCloseTo(650 / 900);
    expect(busyShare(before, before)).toBe(0);
  });

  it("reads this machine's /proc/stat", () => {
    const now = machineCpu();
    expect(now.total).toBeGreaterThan(now.idle);
    expect(() => parseMachineCpu('intr 1\n')).toThrow('no cpu line');
  });
});
