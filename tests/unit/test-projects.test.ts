import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING_UNIT_FILES, PRODUCT_FILES } from '../../vitest.config';

// The product project (vitest.config.ts) is the integration files that start the built product:
// they run after `npm run build`. A file that starts it from the integration project instead
// would build the app itself in the middle of the parallel run, or race the build. The unit files
// share their workers' modules, so a file that replaces or reloads a module would do it for the others.

const root = path.resolve(__dirname, '../..');
// Started through the product helpers, or spawned as `npm start` runs (startCommand) after the build (ensureBuilds).
const startsTheProduct = /\b(ensureBuilds?|startProduct|startProduction|startCommand)\(/;

/** A test file's text and that of the files beside it that it imports (its own support modules). */
function textWithLocalImports(file: string): string {
  const text = readFileSync(path.join(root, file), 'utf8');
  const local = [...text.matchAll(/from '(\.\/[^'/]+)'/g)].map((match) => path.join(root, path.dirname(file), `${match[1]}.ts`));
  return [text, ...local.map((imported) => readFileSync(imported, 'utf8'))].join('\n');
}

describe('test projects', () => {
  it('the product project lists exactly the integration files that start the built product', () => {
    const files = readdirSync(path.join(root, 'tests/integration'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `tests/integration/${file}`);
    const starting = files.filter((file) => startsTheProduct.test(textWithLocalImports(file)));
    expect(starting.sort()).toEqual([...PRODUCT_FILES].sort());
  });

  it('the unit files that mock or reload a module are exactly those that run in a process of their own', () => {
    const files = readdirSync(path.join(root, 'tests/unit'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `tests/unit/${file}`);
    const mocking = files.filter((file) => /\bvi\.(mock|doMock|resetModules)\(/.test(readFileSync(path.join(root, file), 'utf8')));
    expect(mocking.sort()).toEqual([...MOCKING_UNIT_FILES].sort());
  });
});
