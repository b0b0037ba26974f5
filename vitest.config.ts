import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
// `@wgs/server/*` (the server package Next loads, packages/server) is its source here, so a test
// that imports a route file runs the same modules as the test itself: one copy.
const alias = { '@wgs/server': `${root}server/exports`, '@': root };

export default defineConfig({
  resolve: { alias },
  test: {
    // Integration files share one database; each makes its own packages and keys, but races
    // and counts are easier to reason about one file at a time.
    fileParallelism: false,
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/setup/global-database.ts'],
          setupFiles: ['tests/setup/test-env.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
