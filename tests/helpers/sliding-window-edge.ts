import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { WindowStore } from '@/server/domain/rate-limit/sliding-window';

/**
 * A limit of 3 per 60 s used across a window's edge by two instances (two stores on their own
 * connections), on one clock passed in: a fixed window that opened with the first request
 * would take 3 more just after its 60th second, i.e. 5 within a fraction of a second.
 */
export async function expectSlidingAcrossEdge(instanceA: WindowStore, instanceB: WindowStore): Promise<void> {
  const key = `edge:${randomUUID()}`;
  const t0 = 1_800_000_000_000; // the start of a second
  const take = (store: WindowStore, at: number) => store.take(key, 3, 60, t0 + at);

  expect(await take(instanceA, 0)).toMatchObject({ allowed: true, used: 1 });
  expect(await take(instanceB, 59_900)).toMatchObject({ allowed: true, used: 2 });
  expect(await take(instanceB, 59_900)).toMatchObject({ allowed: true, used: 3 });
  // past the edge of a window opened at t0: still full, the refusal names when t0's hit leaves
  expect(await take(instanceA, 60_100)).toEqual({ allowed: false, used: 3, waitMs: 900 });
  expect(await take(instanceB, 60_500)).toMatchObject({ allowed: false });
  // t0's hit has left: exactly one more fits, the next waits for the two of 59.9 s
  expect(await take(instanceB, 61_000)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 61_000)).toEqual({ allowed: false, used: 3, waitMs: 59_000 });
  expect(await take(instanceA, 119_999)).toMatchObject({ allowed: false });
  expect(await take(instanceA, 120_000)).toMatchObject({ allowed: true, used: 2 });
  expect(await take(instanceB, 120_000)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 120_001)).toMatchObject({ allowed: false });

  // a hit given back on one instance is free on the other
  await instanceA.giveBack(key);
  expect(await take(instanceB, 120_002)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 120_003)).toMatchObject({ allowed: false });
}

/** Many hits at once from two instances on one clock: exactly the limit is taken. */
export async function expectExactUnderRace(instanceA: WindowStore, instanceB: WindowStore): Promise<void> {
  const key = `race:${randomUUID()}`;
  const now = 1_800_000_100_000;
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? instanceA : instanceB).take(key, 7, 60, now + i)));
  expect(results.filter((hit) => hit.allowed)).toHaveLength(7);
}
