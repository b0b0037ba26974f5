import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { WindowStore } from '@/server/domain/rate-limit/sliding-window';

/**
 * A limit of 3 per 60 s used across a window's edge by two instances (two stores on their own
 * connections), on one clock passed in: a fixed window that opened with the first request
 * would take 3 more just after its 60th second, i.e. 5 within a fraction of a second. A hit
 * leaves 60 s after the latest hit of its second, and the wait named is exactly until then:
 * never more than the window (before, a hit left at the end of its second plus 60 s, and a
 * refusal could name 61 s).
 */
export async function expectSlidingAcrossEdge(instanceA: WindowStore, instanceB: WindowStore): Promise<void> {
  const key = `edge:${randomUUID()}`;
  const t0 = 1_800_000_000_300; // 300 ms into a second
  const take = (store: WindowStore, at: number) => store.take(key, 3, 60, t0 + at);

  expect(await take(instanceA, 0)).toEqual({ allowed: true, used: 1, waitMs: 60_000 });
  expect(await take(instanceB, 59_600)).toMatchObject({ allowed: true, used: 2 });
  expect(await take(instanceB, 59_600)).toMatchObject({ allowed: true, used: 3 });
  // past the edge of a window opened at t0: still full, the refusal names when t0's hit leaves
  expect(await take(instanceA, 59_800)).toEqual({ allowed: false, used: 3, waitMs: 200 });
  expect(await take(instanceB, 59_999)).toEqual({ allowed: false, used: 3, waitMs: 1 });
  // t0's hit has left, exactly 60 s later: one more fits, the next waits for the two of 59.6 s
  expect(await take(instanceB, 60_000)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 60_000)).toEqual({ allowed: false, used: 3, waitMs: 59_600 });
  expect(await take(instanceA, 119_599)).toMatchObject({ allowed: false });
  expect(await take(instanceA, 119_600)).toMatchObject({ allowed: true, used: 2 });
  expect(await take(instanceB, 119_600)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 119_601)).toMatchObject({ allowed: false });

  // a hit given back on one instance is free on the other
  await instanceA.giveBack(key);
  expect(await take(instanceB, 119_602)).toMatchObject({ allowed: true, used: 3 });
  expect(await take(instanceA, 119_603)).toMatchObject({ allowed: false });
}

/**
 * The wait a full window names is at most the window: a limit of 1 taken at the very start of
 * a second and asked again at once waits exactly 60 s (the old rule said 61), and hits of one
 * second leave together, 60 s after the latest of them.
 */
export async function expectWaitWithinWindow(store: WindowStore): Promise<void> {
  const key = `wait:${randomUUID()}`;
  const t0 = 1_800_000_200_000; // the start of a second
  expect(await store.take(key, 1, 60, t0)).toEqual({ allowed: true, used: 1, waitMs: 60_000 });
  expect(await store.take(key, 1, 60, t0)).toEqual({ allowed: false, used: 1, waitMs: 60_000 });
  expect(await store.take(key, 1, 60, t0 + 59_000)).toEqual({ allowed: false, used: 1, waitMs: 1_000 });
  expect(await store.take(key, 1, 60, t0 + 60_000)).toMatchObject({ allowed: true, used: 1 });

  const merged = `wait:${randomUUID()}`;
  expect(await store.take(merged, 2, 60, t0 + 100)).toMatchObject({ allowed: true, used: 1 });
  expect(await store.take(merged, 2, 60, t0 + 900)).toMatchObject({ allowed: true, used: 2 });
  expect(await store.take(merged, 2, 60, t0 + 900)).toEqual({ allowed: false, used: 2, waitMs: 60_000 });
  expect(await store.take(merged, 2, 60, t0 + 60_899)).toEqual({ allowed: false, used: 2, waitMs: 1 });
  expect(await store.take(merged, 2, 60, t0 + 60_900)).toMatchObject({ allowed: true, used: 1 });
}

/** Many hits at once from two instances on one clock: exactly the limit is taken. */
export async function expectExactUnderRace(instanceA: WindowStore, instanceB: WindowStore): Promise<void> {
  const key = `race:${randomUUID()}`;
  const now = 1_800_000_100_000;
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? instanceA : instanceB).take(key, 7, 60, now + i)));
  expect(results.filter((hit) => hit.allowed)).toHaveLength(7);
}
