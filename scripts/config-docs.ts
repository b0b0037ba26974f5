// `npm run docs:config`: writes docs/configuration.md from the configuration schema.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigurationReference } from './lib/configuration-reference';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'docs', 'configuration.md'), await renderConfigurationReference(root));
process.stdout.write('docs/configuration.md written\n');
