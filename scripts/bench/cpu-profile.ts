// V8's .cpuprofile (what `node --cpu-prof` writes), cut to a window of load and to the CPU it used.
// Its sample times are CLOCK_MONOTONIC microseconds, the clock of process.hrtime in any process
// of the machine, so a window taken in the bench cuts the server's profile exactly.

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number; scriptId: string };
  hitCount?: number;
  children?: number[];
  positionTicks?: unknown[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Now on the profile's clock (µs). */
export const monotonicMicros = () => Number(process.hrtime.bigint() / 1000n);

/** Each sample's time and its duration (µs: to the next sample, the last to the profile's end). */
function sampleSpans(profile: CpuProfile): { at: number; us: number }[] {
  const times: number[] = [];
  let at = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((at += delta));
  return times.map((time, i) => ({ at: time, us: Math.max(0, (times[i + 1] ?? profile.endTime) - time) }));
}

/**
 * The samples taken in [fromUs, toUs] on something other than "(idle)", laid end to end: each keeps
 * its own duration, so the profile's length is the CPU the thread spent in the window and a flame
 * graph of it shows where that went.
 */
export function busyWindow(profile: CpuProfile, fromUs: number, toUs: number): CpuProfile {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === '(idle)').map((node) => node.id));
  const kept = sampleSpans(profile)
    .map((span, i) => ({ ...span, node: profile.samples[i]! }))
    .filter(({ at, node }) => at >= fromUs && at <= toUs && !idle.has(node));
  const hits = new Map<number, number>();
  for (const { node } of kept) hits.set(node, (hits.get(node) ?? 0) + 1);
  const busyUs = kept.reduce((sum, { us }) => sum + us, 0);
  return {
    nodes: profile.nodes.map((node) => ({ ...node, hitCount: hits.get(node.id) ?? 0 })),
    startTime: fromUs,
    endTime: fromUs + busyUs,
    samples: kept.map(({ node }) => node),
    // The first sample at the start; each next one where the one before it ends.
    timeDeltas: kept.map((_, i) => (i === 0 ? 0 : kept[i - 1]!.us)),
  };
}

export interface SelfTime {
  /** Function name and where it is defined (file name and line, 1-based). */
  frame: string;
  share: number;
}

/** The functions that spent the most of a profile's time themselves (not in what they called). */
export function topSelfTime(profile: CpuProfile, count: number): SelfTime[] {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const spent = new Map<string, number>();
  let total = 0;
  sampleSpans(profile).forEach(({ us }, i) => {
    const frame = frameName(byNode.get(profile.samples[i]!)!);
    spent.set(frame, (spent.get(frame) ?? 0) + us);
    total += us;
  });
  return [...spent]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, us]) => ({ frame, share: total ? us / total : 0 }));
}

function frameName({ callFrame }: CpuProfileNode): string {
  const name = callFrame.functionName || '(anonymous)';
  if (!callFrame.url) return name;
  return `${name} ${callFrame.url.split('/').pop()}:${callFrame.lineNumber + 1}`;
}
