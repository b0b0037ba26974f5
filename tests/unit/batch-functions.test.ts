import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareValue } from 'pg/lib/utils.js';
import { batchCall, batchFunctionSql, textArrayLiteral } from '@/server/domain/billing/batch-function';
import { CAPTURE_HOLD, RESERVE_PAID } from '@/server/domain/billing/batched-writes';
import { captureSample, reserveSample } from '../helpers/batched-statement-samples';

// The batch functions run the paid path's statements' own text (billing/batch-function.ts): the
// latest migration that defines each must hold the text the statement has now, so a change to a
// statement comes with a migration that redefines its batch function.

/** The definition of `name` in the last migration that defines it. */
function latestDefinition(name: string): string | undefined {
  let found: string | undefined;
  for (const folder of readdirSync('prisma/migrations').sort()) {
    if (!folder.match(/^\d/)) continue;
    const text = readFileSync(join('prisma/migrations', folder, 'migration.sql'), 'utf8');
    const start = text.indexOf(`CREATE OR REPLACE FUNCTION ${name}(`);
    if (start >= 0) found = text.slice(start, text.indexOf('$wgs$;', start) + '$wgs$;'.length);
  }
  return found;
}

describe('batch functions', () => {
  it.each([
    [RESERVE_PAID, reserveSample],
    [CAPTURE_HOLD, captureSample],
  ])('%o: the latest migration runs the statement as it is now', (batched, sample) => {
    const statement = sample();
    expect(statement.name).toBe(batched.statementName);
    expect(latestDefinition(batched.functionName)).toBe(batchFunctionSql(batched, statement.text));
  });

  it("passes every call's values, in order, as one text[] literal", () => {
    const statement = captureSample();
    const call = batchCall(CAPTURE_HOLD, [statement, statement]);
    const [values, width] = call.values as [string, number];
    expect(width).toBe(statement.values!.length);
    const once = statement.values!.map((value) => prepareValue(value) as string | null);
    expect(values).toBe(prepareValue([...once, ...once]));
    expect(values).toContain('"{\\"local\\",\\"a \\\\\\"quoted\\\\\\", {braced} \\\\\\\\ engine\\"}"');
    expect(() => batchCall(RESERVE_PAID, [statement])).toThrow();
  });

  it("writes a text[] literal exactly as pg's own array conversion does", () => {
    const elements = ['', 'plain', 'a "quote"', 'back\\slash', '\\"', '{braces}, commas', 'NULL', 'null', ' spaced ', 'émoji 🚀', '\n'];
    const cases: (string | null)[][] = [[], [null], elements, [...elements, null, ...elements]];
    for (const values of cases) expect(textArrayLiteral(values)).toBe(prepareValue(values));
  });
});
