import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { startCommand } from './scripts/lib/start-command';
import { CHROMIUM_PATH } from './tests/e2e/support/chromium';
import { e2eStripePort, E2E_STRIPE_SECRET_KEY, E2E_STRIPE_WEBHOOK_SECRET } from './tests/e2e/support/stripe';
import { e2eSmtpPort, E2E_MAIL_FROM } from './tests/e2e/support/mail';

// One fresh product per run: its own data dir (embedded PostgreSQL, files, secrets) and port.
// The env var is set once by the runner and inherited by its workers, so all agree.
process.env.WGS_E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'wgs-e2e-'));
process.env.WGS_E2E_PORT ??= '3107';
const port = Number(process.env.WGS_E2E_PORT);
export const baseURL = `http://127.0.0.1:${port}`;
export const E2E_METRICS_TOKEN = 'e2e-metrics-token-0123456789';
const start = startCommand(import.meta.dirname);
const dashboardView = { viewport: { width: 1440, height: 900 } };
/** Dashboard specs that must have the product to themselves (see `workers`). */
const ALONE = ['**/refusals.spec.ts', '**/selling.spec.ts', '**/portal-buy.spec.ts'];

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  // Two spec files at a time against the one product (a file's tests stay in order): each test
  // waits on pages and the server far more than it computes. The specs that count what every
  // test adds (refusals) or start the fake Stripe on its one port (selling, portal-buy) run
  // after the others, one at a time ('dashboard-alone').
  fullyParallel: false,
  workers: 2,
  // On CI, a test that fails is run once more: two browsers, the product tests and the integration
  // suite share two cores there, and a page may miss its time once. Every retry stays visible: a run
  // ends by listing the tests that passed only on it (scripts/test-recap.ts), and locally none is made.
  retries: process.env.CI ? 1 : 0,
  // Two browsers at once on a shared machine: an axe-core pass alone may take tens of seconds, and
  // the longest tests took 90 s of their 120 in a clean-clone run of npm test.
  timeout: 180_000,
  // The machines that run this are often shared: a page may take more than the default 5 s.
  expect: { timeout: 15_000 },
  // The JSON report is for the recap of failures that ends a failed npm test (scripts/test-recap.ts).
  reporter: [['list'], ['json', { outputFile: '.data/test-reports/playwright.json' }]],
  globalSetup: './tests/e2e/global-setup.ts',
  use: {
    baseURL,
    launchOptions: {
      // Debian's headless build of Chromium (package chromium-headless-shell): the same Blink and V8
      // as /usr/bin/chromium without the desktop browser around them, which Playwright also uses
      // for headless runs. One spec file's pages cost it 30% less CPU than the desktop build.
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    screenshot: 'only-on-failure',
    trace: 'off',
  },
  projects: [
    { name: 'api', testDir: 'tests/e2e/api' },
    // The dashboard is looked at (and screenshotted) at 1440x900, a common laptop screen.
    { name: 'dashboard', testDir: 'tests/e2e/dashboard', testIgnore: ALONE, use: dashboardView },
    {
      name: 'dashboard-alone',
      testDir: 'tests/e2e/dashboard',
      testMatch: ALONE,
      dependencies: ['api', 'dashboard'],
      workers: 1,
      use: dashboardView,
    },
  ],
  webServer: {
    command: ['node', ...start.args].join(' '), // exactly `npm start`
    url: `${baseURL}/healthz`,
    timeout: 240_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      ...start.env,
      WGS_DATA_DIR: process.env.WGS_E2E_DATA_DIR,
      PORT: String(port),
      HOST: '127.0.0.1',
      NEXT_TELEMETRY_DISABLED: '1',
      // Refused counts reach the dashboard within a second; /metrics is served to this token.
      REFUSALS_FLUSH_MS: '1000',
      METRICS_TOKEN: E2E_METRICS_TOKEN,
      // As behind a TLS proxy: X-Forwarded-* are believed (doors.spec.ts sends X-Forwarded-Proto: https).
      TRUST_PROXY: 'true',
      // Selling is on, against the fake Stripe the selling spec starts on this port (tests/e2e/support/stripe.ts).
      STRIPE_SECRET_KEY: E2E_STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: E2E_STRIPE_WEBHOOK_SECRET,
      STRIPE_API_BASE: `http://127.0.0.1:${e2eStripePort()}`,
      // The buyer's e-mail, to the SMTP server the portal spec starts on this port (tests/e2e/support/mail.ts).
      SMTP_URL: `smtp://127.0.0.1:${e2eSmtpPort()}`,
      MAIL_FROM: E2E_MAIL_FROM,
    },
  },
});
