import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withoutNodeMallocSettings } from '@/server/config/node-malloc-settings';

// The embedded PostgreSQL is spawned inside withoutNodeMallocSettings: a child started there must
// not inherit the start script's malloc settings for Node, and this process keeps them after.

const run = promisify(execFile);
const childSees = async () =>
  (
    await run(process.execPath, ['-e', 'console.log([process.env.MALLOC_ARENA_MAX, process.env.MALLOC_MMAP_THRESHOLD_].join())'])
  ).stdout.trim();

describe('withoutNodeMallocSettings', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('spawns the child without them and puts them back', async () => {
    vi.stubEnv('MALLOC_ARENA_MAX', '2');
    vi.stubEnv('MALLOC_MMAP_THRESHOLD_', '131072');
    expect(await childSees()).toBe('2,131072');
    expect(await withoutNodeMallocSettings(childSees)).toBe(',');
    expect([process.env.MALLOC_ARENA_MAX, process.env.MALLOC_MMAP_THRESHOLD_]).toEqual(['2', '131072']);
  });

  it('puts them back when the start fails, and leaves unset ones unset', async () => {
    vi.stubEnv('MALLOC_ARENA_MAX', '2');
    vi.stubEnv('MALLOC_MMAP_THRESHOLD_', undefined);
    await expect(withoutNodeMallocSettings(() => Promise.reject(new Error('no start')))).rejects.toThrow('no start');
    expect(process.env.MALLOC_ARENA_MAX).toBe('2');
    expect('MALLOC_MMAP_THRESHOLD_' in process.env).toBe(false);
  });
});
