// A vitest run fails (exit code 1) on an error no test owns: a promise a test left rejected after it
// ended, an exception in a timer, a rejection in the main process. Such a run's JSON report names
// no failed test, so scripts/test-recap.ts, which a CI log keeps the end of, could only say "no report
// names a failure". This reporter writes those errors beside the JSON report
// (`.data/test-reports/vitest-<project>.unhandled.json`) for the recap to print; a global setup's
// teardown, which runs after the reporters, records its own failure (recordTeardownError).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Reporter, SerializedError, TestModule, Vitest } from 'vitest/node';

export type UnhandledErrorsReport = { errors: { origin: string; message: string; stack?: string }[] };

export default class UnhandledErrorsReporter implements Reporter {
  private outputFile: string | undefined;
  private readonly mainProcessErrors: unknown[] = [];
  private readonly keepMainProcessError = (error: unknown) => this.mainProcessErrors.push(error);

  onInit(vitest: Vitest) {
    const json = vitest.config.outputFile;
    const jsonFile = typeof json === 'string' ? json : json?.json;
    this.outputFile = jsonFile?.replace(/\.json$/, '.unhandled.json');
    // Vitest prints these and sets exit code 1 without passing them to reporters.
    process.on('unhandledRejection', this.keepMainProcessError);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>) {
    process.off('unhandledRejection', this.keepMainProcessError);
    if (!this.outputFile) return;
    const errors = [
      ...unhandledErrors.map((error) => ({ origin: originOf(error), message: error.message, stack: error.stack })),
      ...this.mainProcessErrors.map((error) => ({
        origin: 'the vitest main process (global setup or teardown)',
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      })),
    ];
    if (errors.length > 0) writeReport(this.outputFile, errors);
  }
}

/** A global setup's teardown failed (it runs after the reporters; vitest then exits 1). */
export function recordTeardownError(what: string, error: unknown): void {
  writeReport(join('.data/test-reports', `teardown-${process.pid}.unhandled.json`), [
    {
      origin: `the global teardown: ${what}`,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    },
  ]);
}

function writeReport(file: string, errors: UnhandledErrorsReport['errors']): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ errors } satisfies UnhandledErrorsReport, null, 2));
}

/** Vitest tags a worker's unhandled error with the file and test that were running when it surfaced. */
function originOf(error: SerializedError): string {
  const file = typeof error.VITEST_TEST_PATH === 'string' ? relative(process.cwd(), error.VITEST_TEST_PATH) : undefined;
  const test = typeof error.VITEST_TEST_NAME === 'string' ? error.VITEST_TEST_NAME : undefined;
  const type = typeof error.type === 'string' ? error.type : 'error';
  const after = error.VITEST_AFTER_ENV_TEARDOWN ? ' (after it ended)' : '';
  if (file && test) return `${type} while ${file} > ${test} ran${after}`;
  if (file) return `${type} while ${file} ran${after}`;
  return type;
}
