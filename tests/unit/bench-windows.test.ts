import { describe, expect, it } from 'vitest';
import { addBatchCounts, batchSizesNote, type BatchCounts } from '../../scripts/bench/batch-sizes';
import { BENCH_QUOTA, booksBalance } from '../../scripts/bench/books';
import { answeredOtherwise, rowOf, type Window } from '../../scripts/bench/load';

function window(seconds: number, rps: number, p99: number, cpuMs: number, rssMb: number, promoted?: number, machineBusy = 0.5): Window {
  const total = rps * seconds;
  return {
    seconds,
    run: { rps, p50: p99 / 2, p99, total, sent: total, statuses: { '200': total }, errors: 0 },
    spent: { rssMb, server: cpuMs, main: cpuMs / 2, database: cpuMs * 2, machineBusy },
    promoted,
  };
}

describe('a bench row measured in alternating windows', () => {
  it('adds up requests, CPU and promoted bytes, and weighs the percentiles by requests', () => {
    const row = rowOf('paid', [window(5, 1000, 40, 2000, 250, 10_000), window(5, 600, 80, 1800, 270, 5_000)], 42);
    expect(row.rps).toBe(800);
    expect(row.statuses).toEqual({ '200': 8000 });
    expect(row.cpuServer).toBeCloseTo(3800 / 8000);
    expect(row.cpuServerMain).toBeCloseTo(1900 / 8000);
    expect(row.cpuPg).toBeCloseTo(7600 / 8000);
    expect(row.p99).toBeCloseTo((40 * 5000 + 80 * 3000) / 8000);
    expect(row.p50).toBeCloseTo((20 * 5000 + 40 * 3000) / 8000);
    expect(row.rssMb).toBe(270);
    expect(row.promotedPerRequest).toBeCloseTo(15_000 / 8000);
  });

  it("weighs the machine's busy share by the windows' seconds", () => {
    const row = rowOf('paid', [window(2, 1000, 40, 2000, 250, undefined, 0.9), window(6, 600, 80, 1800, 270, undefined, 0.5)], 42);
    expect(row.machineBusy).toBeCloseTo((0.9 * 2 + 0.5 * 6) / 8);
  });

  it('is the window itself when there is one, with no server figures without its pid', () => {
    const row = rowOf('peer', [window(10, 1500, 30, 900, 200)], undefined);
    expect(row).toMatchObject({ rps: 1500, p50: 15, p99: 30, errors: 0 });
    expect(row.cpuServer).toBeUndefined();
    expect(row.rssMb).toBeUndefined();
    expect(row.promotedPerRequest).toBeUndefined();
  });

  it('notes the batch sizes of all its windows together, not of the rows between them', () => {
    const total: BatchCounts = new Map();
    const at = (statements: number, calls: number): BatchCounts => new Map([['wgs_batch_reserve_paid', { statements, calls }]]);
    addBatchCounts(total, at(10, 100), at(20, 300)); // first window: 10 statements, 200 calls
    addBatchCounts(total, at(50, 900), at(80, 1000)); // second: 30 statements, 100 calls (another row wrote in between)
    addBatchCounts(total, undefined, at(90, 2000)); // metrics off: nothing known
    expect(batchSizesNote(new Map(), total)).toBe('calls per statement: reserve 7.5');
  });
});

describe("the bench's checks of the product's answers", () => {
  const row = (statuses: Record<string, number>, expected: string, errors = 0) =>
    ({ name: 'row', rps: 1, p50: 1, p99: 1, statuses, errors, expected }) as const;

  it('wants every answer of a row to be its scenario’s', () => {
    expect(answeredOtherwise(row({ '200': 10 }, '2xx'))).toBe(false);
    expect(answeredOtherwise(row({ '2xx': 10 }, '2xx'))).toBe(false);
    expect(answeredOtherwise(row({ '200': 10, '502': 1 }, '2xx'))).toBe(true);
    expect(answeredOtherwise(row({ '401': 10, '429': 1 }, '401'))).toBe(true);
    expect(answeredOtherwise(row({ '422': 10 }, '422'))).toBe(false);
    expect(answeredOtherwise(row({ '200': 10 }, '2xx', 1))).toBe(true);
  });

  it('wants a unit captured for every paid answer, and for no more calls than were sent', () => {
    const books = (captured: number, answered?: { paid: number; sent: number }) => [
      { label: 'k', remaining: BENCH_QUOTA - captured, captured, usage: captured, held: 0, answered },
    ];
    expect(booksBalance(books(100, { paid: 98, sent: 101 }))).toBe(true);
    expect(booksBalance(books(100, { paid: 100, sent: 100 }))).toBe(true);
    expect(booksBalance(books(97, { paid: 98, sent: 101 }))).toBe(false); // a paid answer charged nothing
    expect(booksBalance(books(102, { paid: 98, sent: 101 }))).toBe(false); // charged more than was asked
    expect(booksBalance(books(100))).toBe(true);
  });
});
