import { describe, expect, it } from 'vitest';
import { callPlanner, faultsFor, type ChaosKeyPlan } from '@/scripts/chaos/driver/plan';
import { faultTimeline } from '@/scripts/chaos/faults/timeline';
import { Random } from '@/scripts/chaos/random';

// The chaos run's schedule comes from its seed alone: the same seed deals the same calls, faults
// and timeline; another seed another; and every fault a kind of call can meet is dealt.

const KEYS: ChaosKeyPlan[] = [
  { name: 'provider', provider: true, sells: true },
  { name: 'local', provider: false, sells: false },
];

const schedule = (seed: number, count: number) => {
  const next = callPlanner(seed, KEYS);
  return Array.from({ length: count }, () => {
    const { random: _random, jitter: _jitter, key, ...plan } = next();
    return { ...plan, key: key.name };
  });
};

describe('the chaos schedule', () => {
  it('is the same for the same seed, and another for another seed', () => {
    expect(schedule(42, 200)).toEqual(schedule(42, 200));
    expect(schedule(42, 200)).not.toEqual(schedule(43, 200));
    expect(faultTimeline(42, 120_000)).toEqual(faultTimeline(42, 120_000));
    expect(faultTimeline(42, 120_000)).not.toEqual(faultTimeline(43, 120_000));
  });

  it('a stream of the random source depends only on the seed and its labels', () => {
    const draw = (random: Random) => Array.from({ length: 20 }, () => random.int(0, 1_000_000));
    const a = Random.of(7, 'call', 3);
    Random.of(7, 'call', 4).int(0, 10); // another stream drawing meanwhile changes nothing
    expect(draw(a)).toEqual(draw(Random.of(7, 'call', 3)));
    expect(draw(Random.of(7, 'call', 3))).not.toEqual(draw(Random.of(7, 'call', 4)));
  });

  it('deals each kind of fault early, then every fault that fits a kind of call in turn', () => {
    for (let seed = 1; seed <= 20; seed++) {
      // A call meets a fault the run has not met yet while one fits it: 20 calls meet at least 7
      // kinds (with the process faults of the timeline, 10 kinds).
      const first = schedule(seed, 20);
      const met = new Set(first.map((p) => p.fault).filter(Boolean));
      expect(met.size, `seed ${seed}: ${[...met].join(', ')}`).toBeGreaterThanOrEqual(7);
    }
    const plans = schedule(5, 3000);
    for (const kind of ['text', 'text-stream', 'code', 'transcribe', 'video', 'top-up'] as const) {
      for (const provider of [true, false]) {
        if (kind === 'top-up' && !provider) continue; // only the key that sells is topped up
        const dealt = new Set(plans.filter((p) => p.kind === kind && (p.key === 'provider') === provider && p.fault).map((p) => p.fault));
        expect(dealt, `${kind} ${provider}`).toEqual(new Set(faultsFor(kind, provider)));
      }
    }
  });

  it('puts every kind of process fault on the timeline, within the traffic', () => {
    for (const seed of [1, 2, 3, 99]) {
      const timeline = faultTimeline(seed, 60_000);
      expect(new Set(timeline.map((fault) => fault.kind))).toEqual(new Set(['app-killed', 'worker-killed', 'postgres-restarted']));
      for (const fault of timeline) expect(fault.at).toBeGreaterThan(0);
      for (const fault of timeline) expect(fault.at).toBeLessThan(60_000);
    }
  });
});
