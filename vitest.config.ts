import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
// `@wgs/server/*` (the server package Next loads, packages/server) is its source here, so a test
// that imports a route file runs the same modules as the test itself: one copy.
const alias = { '@wgs/server': `${root}server/exports`, '@': root };

/**
 * The integration files that start the built product (`npm start`, `npm run start:production`,
 * the container image's commands) as child processes: they need `npm run build` first, and each
 * runs a few servers of its own, so they are a project of their own (`npm run test:product`).
 * tests/unit/test-projects.test.ts fails when a file that starts the product is not listed here.
 */
export const PRODUCT_FILES = [
  'tests/integration/address-controls.test.ts',
  'tests/integration/auth-failures-shared.test.ts',
  'tests/integration/connection-cap.test.ts',
  'tests/integration/container-image.test.ts',
  'tests/integration/direct-path-parity.test.ts',
  'tests/integration/drain.test.ts',
  'tests/integration/faults.test.ts',
  'tests/integration/multi-instance.test.ts',
  'tests/integration/observability/product-observability.test.ts',
  'tests/integration/openai-compatible/exactly-once.test.ts',
  'tests/integration/openai-compatible/sdk-endpoints.test.ts',
  'tests/integration/production-start.test.ts',
  'tests/integration/restart.test.ts',
  'tests/integration/sales/selling-product.test.ts',
  'tests/integration/text-stream-endings-server.test.ts',
  'tests/integration/text-stream-server.test.ts',
  'tests/integration/webhook-outbound-product.test.ts',
];

/**
 * `npm run test:unit` runs with --no-isolate: a worker runs unit file after unit file on the modules
 * it has loaded. Loading the server's modules again for each of sixty short files cost more CPU
 * than their tests (85 s against 34 on this machine). Vitest gives each project fresh workers, so
 * a file that replaces a module (vi.mock) or loads one afresh (vi.resetModules, e.g. to leave a stop's
 * cut behind) is a project of its own ('unit:<file>'), and what it did reaches no other file.
 * tests/unit/test-projects.test.ts fails when such a file is not listed here.
 */
export const MOCKING_UNIT_FILES = ['tests/unit/openapi-examples.test.ts', 'tests/unit/in-flight.test.ts'];

/**
 * The product files that start and stop it as a whole (the production command, a restart on the
 * same data dir): a project of their own (`npm run test:product:start`) that npm test runs after
 * the browser tests and the chaos run, so that the two halves of its `built` lane take about as long.
 */
export const PRODUCT_START_FILES = ['tests/integration/production-start.test.ts', 'tests/integration/restart.test.ts'];

// Integration and product files run side by side, each on a database of its own
// (tests/setup/test-database.ts), up to maxWorkers at once; the package.json scripts set how many.
const againstDatabase = {
  environment: 'node' as const,
  globalSetup: ['tests/setup/global-database.ts'],
  setupFiles: ['tests/setup/test-env.ts'],
  // Three files at once beside the other lanes of npm test: a file that runs the CLI or the product
  // as child processes (seconds of CPU each) needs more than a minute of a shared machine.
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  resolve: { alias },
  test: {
    // A test file's process lives for seconds: Prisma's 3.4 MB WebAssembly query compiler runs hot
    // enough at start to be recompiled by TurboFan in each one, work no file lives long enough to
    // use (scripts/cli.ts says the same for the CLI). Baseline code only: same results, less CPU.
    poolOptions: { forks: { execArgv: ['--liftoff-only'] } },
    projects: [
      {
        resolve: { alias },
        // Unit files run two at a time beside the lint and the build (npm test): a test that encodes
        // and decodes media through several ffmpeg processes (tests/unit/local-engine) took over 30 s
        // of a machine loaded that way.
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...MOCKING_UNIT_FILES],
          environment: 'node',
          testTimeout: 90_000,
        },
      },
      ...MOCKING_UNIT_FILES.map((file) => ({
        resolve: { alias },
        test: { name: `unit:${file}`, include: [file], environment: 'node' as const, testTimeout: 90_000 },
      })),
      // `npm run test:integration` runs with --no-isolate too (vitest sets isolation for a whole run,
      // not per project): a worker runs file after file in one process, so the libraries (Prisma's
      // client, the AI SDK, pg, zod...) are loaded once per worker instead of once per file, which
      // cost more CPU than the files' tests (this project alone on this machine: 479 s and 8.2 min
      // of CPU isolated, 238 s and 4.5 min not).
      // Before each file tests/setup/test-env.ts closes what the previous file left open, reloads
      // the project's own modules (the server's caches, pools and settings start afresh) and puts
      // the environment back. --minWorkers equals --maxWorkers: a worker left idle while others
      // still ran was ended by the pool, and vitest then ended the whole run ("Terminating worker
      // thread", the other workers' files unfinished).
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PRODUCT_FILES],
          ...againstDatabase,
          globalSetup: [...againstDatabase.globalSetup, 'tests/setup/global-server-bundle.ts'],
        },
      },
      {
        resolve: { alias },
        test: { name: 'product', include: PRODUCT_FILES, exclude: PRODUCT_START_FILES, ...againstDatabase },
      },
      {
        resolve: { alias },
        test: { name: 'product-start', include: PRODUCT_START_FILES, ...againstDatabase },
      },
    ],
  },
});
