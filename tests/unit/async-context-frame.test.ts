import { describe, expect, it } from 'vitest';
import { withAsyncContextFrame } from '../../scripts/lib/async-context-frame.mjs';

const start = {
  version: 'v22.23.3',
  execPath: '/usr/bin/node',
  execArgv: ['--max-old-space-size=256', '--no-allocation-site-pretenuring'],
  argv: ['/usr/bin/node', '/app/scripts/start.mjs', '--v1-through-next'],
  nodeOptions: undefined,
  canExec: true,
};

describe('the start on AsyncContextFrame', () => {
  it('restarts itself on Node 22 with the flag in front of its own arguments', () => {
    expect(withAsyncContextFrame(start)).toEqual([
      '/usr/bin/node',
      '--experimental-async-context-frame',
      '--max-old-space-size=256',
      '--no-allocation-site-pretenuring',
      '/app/scripts/start.mjs',
      '--v1-through-next',
    ]);
  });

  it('goes on as it is once the flag or its --no- form is given, on Node 24 (its default there), and without execve', () => {
    expect(withAsyncContextFrame({ ...start, execArgv: ['--experimental-async-context-frame', ...start.execArgv] })).toBeUndefined();
    expect(withAsyncContextFrame({ ...start, nodeOptions: '--trace-gc --no-experimental-async-context-frame' })).toBeUndefined();
    expect(withAsyncContextFrame({ ...start, nodeOptions: '--experimental-async-context-frame' })).toBeUndefined();
    expect(withAsyncContextFrame({ ...start, version: 'v24.11.0' })).toBeUndefined();
    expect(withAsyncContextFrame({ ...start, canExec: false })).toBeUndefined();
  });
});
