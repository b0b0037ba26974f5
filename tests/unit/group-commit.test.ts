import { describe, expect, it } from 'vitest';
import { GroupCommit } from '@/server/domain/billing/group-commit';

// The group commit of the paid path's statements (billing/group-commit.ts): a lone call goes at
// once and alone; calls that arrive while a write is running go together in the next.

class Refused extends Error {}

function recorder(options: { failBatch?: unknown; failOne?: (call: number) => boolean; maxBatch?: number } = {}) {
  const writes: number[][] = [];
  const sizes: number[] = [];
  const commit = new GroupCommit<number, string>({
    maxBatch: options.maxBatch ?? 64,
    async writeBatch(calls) {
      writes.push(calls);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.failBatch) throw options.failBatch;
      return calls.map((call) => `batch:${call}`);
    },
    async writeOne(call) {
      writes.push([call]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (options.failOne?.(call)) throw new Refused(`call ${call}`);
      return `one:${call}`;
    },
    rolledBack: (error) => error instanceof Refused,
    onBatch: (size) => sizes.push(size),
  });
  return { commit, writes, sizes };
}

describe('GroupCommit', () => {
  it('writes a lone call at once, on its own', async () => {
    const { commit, writes } = recorder();
    expect(await commit.submit(1)).toBe('one:1');
    expect(await commit.submit(2)).toBe('one:2');
    expect(writes).toEqual([[1], [2]]);
  });

  it('gathers the calls that arrive during a write into the next, each with its own answer, at most maxBatch', async () => {
    const { commit, writes, sizes } = recorder({ maxBatch: 3 });
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((call) => commit.submit(call)));
    expect(answers).toEqual(['one:1', 'batch:2', 'batch:3', 'batch:4', 'batch:5', 'batch:6']);
    expect(writes).toEqual([[1], [2, 3, 4], [5, 6]]);
    expect(sizes).toEqual([1, 3, 2]);
  });

  it('writes a batch the database rolled back again call by call: only the call at fault fails', async () => {
    const { commit, writes } = recorder({ failBatch: new Refused('batch'), failOne: (call) => call === 3 });
    const answers = await Promise.allSettled([1, 2, 3, 4].map((call) => commit.submit(call)));
    expect(answers.map((answer) => (answer.status === 'fulfilled' ? answer.value : 'refused'))).toEqual([
      'one:1',
      'one:2',
      'refused',
      'one:4',
    ]);
    expect(writes.slice(0, 2)).toEqual([[1], [2, 3, 4]]);
  });

  it('gives every call of the batch a failure whose outcome is unknown, and writes nothing again', async () => {
    const lost = new Error('Connection terminated unexpectedly');
    const { commit, writes } = recorder({ failBatch: lost });
    const answers = await Promise.allSettled([1, 2, 3].map((call) => commit.submit(call)));
    expect(answers.map((answer) => answer.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(answers.slice(1).map((answer) => (answer as PromiseRejectedResult).reason)).toEqual([lost, lost]);
    expect(writes).toEqual([[1], [2, 3]]);
    expect(await commit.submit(4)).toBe('one:4');
  });
});
