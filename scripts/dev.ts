// `npm run dev`: `next dev` beside a watch build of the server package (scripts/lib/server-bundle.ts)
// into dist/, which Next loads unbundled as npm start does. Node cannot load a module twice, so a
// change under server/ restarts `next dev` once its new build is written; a change under app/ or
// components/ is Next's own hot reload, as usual. Arguments go to `next dev` (`npm run dev -- -p 3001`).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { context } from 'esbuild';
import { bundleOptions, SERVER_DIST_DIR } from './lib/server-bundle';

const root = process.cwd();
const log = (line: string) => process.stdout.write(`[wgs dev] ${line}\n`);
let next: ChildProcess | undefined;

async function restartNext(): Promise<void> {
  if (next && next.exitCode === null) {
    log('the server package changed: restarting next dev');
    next.kill('SIGTERM');
    await once(next, 'exit');
  }
  next = spawn(process.execPath, ['node_modules/next/dist/bin/next', 'dev', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
}

rmSync(join(root, SERVER_DIST_DIR), { recursive: true, force: true }); // no chunk of another build beside the watch's
const watch = await context({
  ...bundleOptions(root, join(root, SERVER_DIST_DIR)),
  plugins: [{ name: 'restart-next', setup: (build) => build.onEnd((result) => void (result.errors.length === 0 && restartNext())) }],
});
await watch.watch();
log(`building the server package into ${SERVER_DIST_DIR}/ on every change`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    await watch.dispose();
    next?.kill(signal);
    process.exit(0);
  });
}
