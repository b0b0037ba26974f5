import { describe, expect, it, vi } from 'vitest';

// The engine calls a stop can cut short (server/lifecycle/in-flight.ts): a call forgotten when its
// request ends is not cut, however often it is forgotten and whoever took its place since.

/** The module fresh: a cut is for good (this file runs in a process of its own, vitest.config.ts). */
async function freshInFlight() {
  vi.resetModules();
  return import('@/server/lifecycle/in-flight');
}

describe('calls in flight', () => {
  it('cuts the calls still running, each once, and none that were forgotten', async () => {
    const { cuttable, cutShortInFlight } = await freshInFlight();
    const [a, b, c, d] = [new AbortController(), new AbortController(), new AbortController(), new AbortController()];
    const forgetA = cuttable(a);
    const forgetB = cuttable(b);
    forgetA();
    const forgetC = cuttable(c); // takes A's place
    forgetA(); // A's request ends twice (its deadline is cleared twice): C stays registered
    cuttable(d);
    forgetB();

    expect(cutShortInFlight()).toBe(2);
    expect([a, b, c, d].map((controller) => controller.signal.aborted)).toEqual([false, false, true, true]);
    forgetC();
    const late = new AbortController();
    cuttable(late);
    expect(late.signal.aborted).toBe(true); // the grace is over: a call that starts now is cut at once
  });

  it('keeps every call of a crowd until it is forgotten', async () => {
    const { cuttable, cutShortInFlight } = await freshInFlight();
    const controllers = Array.from({ length: 50 }, () => new AbortController());
    const forgets = controllers.map((controller) => cuttable(controller));
    forgets.forEach((forget, index) => index % 3 === 0 && forget());
    const again = Array.from({ length: 10 }, () => new AbortController());
    again.forEach((controller) => cuttable(controller));

    expect(cutShortInFlight()).toBe(50 - 17 + 10);
    expect(controllers.filter((controller) => controller.signal.aborted)).toHaveLength(33);
    expect(again.every((controller) => controller.signal.aborted)).toBe(true);
  });
});
