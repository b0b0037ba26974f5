import { readdirSync, readFileSync } from 'node:fs';

// What the kernel says a process costs: memory from /proc/<pid>/status, CPU from /proc/<pid>/stat.

/** VmRSS and VmHWM of a process, in MB. */
export function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/** CPU time (user + system) in ms from a /proc stat file; throws when the process is gone. */
function cpuMsOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, USER_HZ = 100
}

/** CPU time (user + system) per process, in ms, from /proc/<pid>/stat. */
export function cpuByPid(pids: number[]): Map<number, number> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    try {
      times.set(pid, cpuMsOf(`/proc/${pid}/stat`));
    } catch {
      // gone
    }
  }
  return times;
}

/** CPU ms of a process's main thread alone (the JavaScript thread; V8's GC and libuv helpers excluded). */
export function mainThreadCpu(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    return cpuMsOf(`/proc/${pid}/task/${pid}/stat`);
  } catch {
    return 0;
  }
}

/** CPU ms spent between two samples: processes that started meanwhile count from 0; ones that exited are lost. */
export function cpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += Math.max(0, ms - (before.get(pid) ?? 0));
  return total;
}

/** The postmaster and all its children (backends, background workers); none without a postmaster. */
export function postgresPids(postmasterPid: number): number[] {
  if (!postmasterPid) return [];
  const pids = [postmasterPid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmasterPid) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Time on a CPU and time waiting on a run queue, in µs (/proc/<pid>/task/<tid>/schedstat). */
export interface SchedTime {
  runUs: number;
  waitUs: number;
}

/** Scheduler times per thread of `pids` (every thread of each, or only its main thread), keyed by thread id. */
export function schedByThread(pids: number[], mainThreadOnly = false): Map<string, SchedTime> {
  const times = new Map<string, SchedTime>();
  for (const pid of pids) {
    let threads: string[];
    try {
      threads = mainThreadOnly ? [String(pid)] : readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of threads) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
        times.set(tid, { runUs: run! / 1000, waitUs: wait! / 1000 });
      } catch {
        // gone
      }
    }
  }
  return times;
}

/** Scheduler time spent between two samples, as cpuSpent counts CPU: new threads from 0, exited ones lost. */
export function schedSpent(before: Map<string, SchedTime>, after: Map<string, SchedTime>): SchedTime {
  const total = { runUs: 0, waitUs: 0 };
  for (const [tid, time] of after) {
    const was = before.get(tid) ?? { runUs: 0, waitUs: 0 };
    total.runUs += Math.max(0, time.runUs - was.runUs);
    total.waitUs += Math.max(0, time.waitUs - was.waitUs);
  }
  return total;
}

/** The whole machine's CPU time in USER_HZ ticks (/proc/stat's `cpu` line): all of it, and the idle part (idle + iowait). */
export interface MachineCpu {
  total: number;
  idle: number;
}

/** The `cpu` line of a /proc/stat text: user nice system idle iowait irq softirq steal (guest time is within user). */
export function parseMachineCpu(procStat: string): MachineCpu {
  const line = /^cpu\s+(.*)$/m.exec(procStat);
  if (!line) throw new Error('no cpu line in /proc/stat');
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line[1]!.trim().split(/\s+/).map(Number);
  const idleTicks = idle! + (iowait ?? 0);
  return { total: user! + nice! + system! + idleTicks + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0), idle: idleTicks };
}

/** The machine's CPU time so far. */
export function machineCpu(): MachineCpu {
  return parseMachineCpu(readFileSync('/proc/stat', 'utf8'));
}

/** The share of the machine's CPU time that was busy between two samples (every process, the load generator's too). */
export function busyShare(before: MachineCpu, after: MachineCpu): number {
  const total = after.total - before.total;
  return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
}
