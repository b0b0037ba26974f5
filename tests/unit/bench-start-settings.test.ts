import { describe, expect, it } from 'vitest';
import { parseWithout, withoutSettings } from '../../scripts/bench/start-settings';
import { startCommand } from '../../scripts/lib/start-command';

const shipped = {
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
  args: ['--max-old-space-size=160', '--no-allocation-site-pretenuring', 'scripts/start.mjs'],
};

describe('BENCH_WITHOUT: the start settings a bench run can leave out', () => {
  it('leaves each named setting out and keeps the rest', () => {
    expect(withoutSettings(shipped, ['malloc'])).toEqual({ env: {}, args: shipped.args });
    expect(withoutSettings(shipped, ['heap-cap']).args).toEqual(['--no-allocation-site-pretenuring', 'scripts/start.mjs']);
    expect(withoutSettings(shipped, ['pretenuring', 'heap-cap'])).toEqual({
      env: shipped.env,
      args: ['scripts/start.mjs'],
    });
    expect(withoutSettings(shipped, [])).toEqual(shipped);
  });

  it('refuses an unknown name and a setting the start script does not have', () => {
    expect(parseWithout(' malloc, heap-cap ')).toEqual(['malloc', 'heap-cap']);
    expect(parseWithout(undefined)).toEqual([]);
    expect(() => parseWithout('malloc,heapcap')).toThrow(/unknown setting "heapcap"/);
    expect(() => withoutSettings({ env: {}, args: ['scripts/start.mjs'] }, ['heap-cap'])).toThrow(/no such setting/);
  });

  it("knows every setting package.json's start script has today", () => {
    const start = startCommand(process.cwd());
    const bare = withoutSettings(start, ['malloc', 'heap-cap', 'pretenuring']);
    // NODE_ENV is the mode the product runs in, not a speed setting: a bench run keeps it.
    expect(bare).toEqual({ env: { NODE_ENV: 'production' }, args: ['scripts/start.mjs'] });
  });
});
