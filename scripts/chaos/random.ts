import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

// The run's one source of randomness: pure-rand's xoroshiro128+ seeded from the run's seed. Each
// part of the run draws from a stream of its own, named by labels (`Random.of(seed, 'call', 7)`),
// so what one part draws never depends on how often another drew, nor on the order in which
// concurrent clients happened to run: the same seed gives the same calls and the same faults.

export class Random {
  private constructor(private readonly generator: RandomGenerator) {}

  /** The stream named by `labels` under `seed`. */
  static of(seed: number, ...labels: (string | number)[]): Random {
    const digest = createHash('sha256')
      .update(`${seed}/${labels.join('/')}`)
      .digest();
    return new Random(xoroshiro128plus(digest.readInt32BE(0)));
  }

  /** A whole number from `from` to `to`, both included. */
  int(from: number, to: number): number {
    return uniformInt(this.generator, from, to);
  }

  /** A number from 0 (included) to 1 (excluded). */
  float(): number {
    return uniformFloat64(this.generator);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('nothing to pick from');
    return items[this.int(0, items.length - 1)]!;
  }

  /** One of `weights`' keys, each as likely as its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let left = this.float() * entries.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [key, weight] of entries) {
      left -= weight;
      if (left < 0) return key;
    }
    return entries.at(-1)![0];
  }

  /** A new array with `items` in a random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy;
  }
}
