// The first half of `npm run build` (before `next build`, which loads it): the server bundled into
// dist/, the server package Next loads and the entry points of npm start's server, the worker,
// the CLI and the migrate step (scripts/lib/server-bundle.ts).
import { rebuildServerBundle, SERVER_DIST_DIR, SERVER_ENTRIES } from './lib/server-bundle';

rebuildServerBundle(process.cwd());
process.stdout.write(`bundled ${SERVER_ENTRIES.map((name) => `${SERVER_DIST_DIR}/${name}.js`).join(', ')}\n`);
