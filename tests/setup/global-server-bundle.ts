import { resolve } from 'node:path';
import { ensureServerBundle } from '../../scripts/lib/server-bundle';

// The integration files run the operator CLI as operators do, from the build that ships
// (`node dist/cli.js`, docs/deploy.md): bundled here when dist/ is missing or older than the code,
// or waited for while `npm run build` (npm test's other lane) bundles it.
export default function setup(): void {
  ensureServerBundle(resolve(import.meta.dirname, '../..'), (line) => process.stdout.write(`[tests] ${line}\n`));
}
