// `npm test` runs its lanes side by side, so a failure is printed far above the run's last lines
// (and a CI log often keeps only those). This runs last (`tsx scripts/test-recap.ts <exit status>`)
// and prints what failed: every failed test of the vitest projects and Playwright, every error no
// vitest test owned (which fails a run whose tests all passed) and every chaos violation, read
// from the JSON reports the run wrote to .data/test-reports/ (package.json's test scripts name
// them). Tests that passed only on Playwright's retry (CI only) are listed even when
// the run passed, so that a flaky test or a race the retry hid is seen.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { UnhandledErrorsReport } from '../tests/setup/unhandled-errors-reporter';
import { renderViolations, violationCount, type RunReport } from './chaos/report';

const REPORTS = '.data/test-reports';
const MESSAGE_LINES = 12;
const FAILED = '  ✗ ';
const FLAKY = '  ~ passed on a retry: ';
// Stack frames of the test runner and of Node itself say nothing about the failure.
const RUNNER_FRAME = /^\s*at .*(node_modules\/|node:internal|<anonymous>)/;

type VitestReport = {
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
};
type PlaywrightResult = { status: string; error?: { message?: string } };
type PlaywrightSpec = { title: string; line: number; tests: { projectName: string; status: string; results: PlaywrightResult[] }[] };
type PlaywrightSuite = { file: string; title: string; specs?: PlaywrightSpec[]; suites?: PlaywrightSuite[] };
type PlaywrightReport = { suites: PlaywrightSuite[]; errors: { message?: string }[] };

function excerpt(message: string | undefined): string[] {
  const lines = stripVTControlCharacters(message ?? '(no message)')
    .trimEnd()
    .split('\n')
    .filter((line) => !RUNNER_FRAME.test(line));
  const shown = lines.slice(0, MESSAGE_LINES).map((line) => `      ${line}`);
  if (lines.length > MESSAGE_LINES) shown.push(`      … ${lines.length - MESSAGE_LINES} more lines above in the lane's output`);
  return shown;
}

function vitestFailures(report: VitestReport): string[] {
  const lines: string[] = [];
  for (const file of report.testResults) {
    const failed = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failed)
      lines.push(`${FAILED}${relative(process.cwd(), file.name)} > ${test.fullName}`, ...excerpt(test.failureMessages[0]));
    // A file can fail with no failed test: a hook, an import, an unhandled error.
    if (file.status === 'failed' && failed.length === 0)
      lines.push(`${FAILED}${relative(process.cwd(), file.name)}`, ...excerpt(file.message));
  }
  return lines;
}

/** Errors no test owned, which fail a vitest run whose tests all passed (tests/setup/unhandled-errors-reporter.ts). */
function unhandledErrors(report: UnhandledErrorsReport): string[] {
  return report.errors.flatMap((error) => [`${FAILED}${error.origin}`, ...excerpt(error.stack ?? error.message)]);
}

function playwrightFailures(report: PlaywrightReport): string[] {
  const lines: string[] = [];
  const walk = (suite: PlaywrightSuite, titles: string[]) => {
    for (const spec of suite.specs ?? [])
      for (const test of spec.tests.filter((t) => t.status === 'unexpected' || t.status === 'flaky')) {
        const failure = test.results.find((result) => result.status !== 'passed' && result.status !== 'skipped');
        const mark = test.status === 'flaky' ? FLAKY : FAILED;
        const title = [...titles, spec.title].join(' > ');
        lines.push(`${mark}[${test.projectName}] ${suite.file}:${spec.line} ${title}`, ...excerpt(failure?.error?.message));
      }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites) walk(suite, []);
  for (const error of report.errors) lines.push(`${FAILED}outside any test`, ...excerpt(error.message));
  return lines;
}

/** The chaos run's own rendering of its violations, each line marked as a failure. */
function chaosViolations(report: RunReport): string[] {
  if (violationCount(report.invariants) === 0) return [];
  return renderViolations(report, 5)
    .filter((line) => line !== '')
    .map((line) => (line.startsWith('  ') && !line.startsWith('  ...') ? `${FAILED}${line.trim()}` : `  ${line}`));
}

function recap(file: string): string[] {
  const report: unknown = JSON.parse(readFileSync(join(REPORTS, file), 'utf8'));
  if (file.endsWith('.unhandled.json')) return unhandledErrors(report as UnhandledErrorsReport);
  if (file.startsWith('vitest-')) return vitestFailures(report as VitestReport);
  if (file === 'playwright.json') return playwrightFailures(report as PlaywrightReport);
  if (file === 'chaos.json') return chaosViolations(report as RunReport);
  return [];
}

const runFailed = process.argv[2] !== '0';
const files = existsSync(REPORTS) ? readdirSync(REPORTS).filter((file) => file.endsWith('.json')) : [];
const found: string[] = [];
let failures = 0;
let flakes = 0;
for (const file of files.sort()) {
  try {
    const lines = recap(file);
    if (lines.length) found.push(`${file.replace(/\.json$/, '')}:`, ...lines);
    failures += lines.filter((line) => line.startsWith(FAILED)).length;
    flakes += lines.filter((line) => line.startsWith(FLAKY)).length;
  } catch (error) {
    found.push(`${file}: unreadable (${error instanceof Error ? error.message : String(error)})`);
  }
}
const out: string[] = [];
if (runFailed || failures || flakes) {
  const what = runFailed ? 'What failed' : `Passed, but ${flakes} test(s) only on a retry`;
  out.push('', `--> ${what} (from the reports in .data/test-reports/):`, ...found);
}
if (runFailed && failures === 0) {
  const written = files.map((file) => file.replace(/\.json$/, '')).join(', ') || 'none';
  out.push(
    `  no report names a failure (reports written: ${written}): the step that failed wrote none (lint, format,`,
    '  typecheck, the build, or a run that ended before its report); its lane ended with a non-zero exit code above.',
  );
}
if (out.length) process.stdout.write(`${out.join('\n')}\n`);
