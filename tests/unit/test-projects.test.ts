import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRODUCT_FILES } from '../../vitest.config';

// The product project (vitest.config.ts) is the integration files that start the built product:
// they run after `npm run build`. A file that starts it from the integration project instead
// would build the app itself in the middle of the parallel run, or race the build.

const root = path.resolve(__dirname, '../..');
// Started through the product helpers, or spawned as `npm start` runs (startCommand) after the build (ensureBuilds).
const startsTheProduct = /\b(ensureBuilds?|startProduct|startProduction|startCommand)\(/;

describe('test projects', () => {
  it('the product project lists exactly the integration files that start the built product', () => {
    const files = readdirSync(path.join(root, 'tests/integration'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `tests/integration/${file}`);
    const starting = files.filter((file) => startsTheProduct.test(readFileSync(path.join(root, file), 'utf8')));
    expect(starting.sort()).toEqual([...PRODUCT_FILES].sort());
  });
});
