// The second half of `npm run build` (after `next build`): the server's entry points bundled
// into dist/ for the production command, the worker, the CLI and the migrate step
// (scripts/lib/server-bundle.ts).
import { buildServerBundle, SERVER_DIST_DIR, SERVER_ENTRIES } from './lib/server-bundle';

buildServerBundle(process.cwd());
process.stdout.write(`bundled ${SERVER_ENTRIES.map((name) => `${SERVER_DIST_DIR}/${name}.js`).join(', ')}\n`);
