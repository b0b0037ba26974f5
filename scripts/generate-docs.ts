// Writes the generated reference pages: docs/packages-file.md (from the packages file's schema)
// and docs/cli.md (from the CLI's commander definitions). `npm run docs:generate`.
import { writeFileSync } from 'node:fs';
import { GENERATED_PAGES, formatMarkdown } from './docs/generated-pages';

for (const page of GENERATED_PAGES) {
  writeFileSync(page.path, await formatMarkdown(page.render()));
  process.stdout.write(`wrote ${page.path}\n`);
}
