import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// The test runners, the CLI and the launcher all load the embedded-PostgreSQL module, whose
// library once turned every natural process end into exit code 0, so failing test runs passed.
describe('a process that loads the embedded PostgreSQL module', () => {
  it('ends with the exit code it set, not 0', () => {
    const script = "await import('./server/db/embedded-postgres.ts'); process.exitCode = 3;";
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(3);
  });
});
