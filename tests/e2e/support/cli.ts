import { execFileSync } from 'node:child_process';

/**
 * Runs the operator CLI against the e2e product's data dir (its running embedded PostgreSQL), from
 * the build that product runs (`node dist/cli.js`, as docs/deploy.md has operators run it): `npm
 * start` has built dist/ before any test starts. The integration tests run the source through tsx.
 */
export function cli<T = unknown>(...args: string[]): T {
  const stdout = execFileSync(process.execPath, ['dist/cli.js', ...args, '--json'], {
    env: { ...process.env, WGS_DATA_DIR: process.env.WGS_E2E_DATA_DIR },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(stdout) as T;
}

export const OPERATOR = { email: 'operator@example.com', password: 'correct horse battery staple' };
