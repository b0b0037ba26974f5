import type { QueryConfig } from 'pg';
import { prepareValue } from 'pg/lib/utils.js';
import sql, { raw } from 'sql-template-tag';
import { prepared } from './sql-statement';

// A batch of one billing statement as one statement and one commit: a PL/pgSQL function (created
// by a migration) runs the statement's own text once per call, in the calls' order, each seeing
// what the ones before it wrote, and returns each call's row as jsonb. The function's body is
// generated from the statement's text (batchFunctionSql), so the SQL is written once, in the
// statement; tests/unit/batch-functions.test.ts holds the latest migration to it.

/** A statement the paid path writes in batches: its pg name and its batch function's name. */
export interface BatchedStatement {
  statementName: string;
  functionName: string;
}

/**
 * The function's definition: the statement's `$n` become `wgs_call[n]`, the call's values as text
 * (every value in billing's statements is cast where it is used).
 */
export function batchFunctionSql(batched: BatchedStatement, statementText: string): string {
  const body = statementText.replace(/\$(\d+)/g, (_, position: string) => `wgs_call[${position}]`);
  return `CREATE OR REPLACE FUNCTION ${batched.functionName}(wgs_values TEXT[], wgs_width INTEGER)
RETURNS SETOF JSONB
LANGUAGE plpgsql AS $wgs$
DECLARE
  wgs_call TEXT[];
  wgs_row RECORD;
BEGIN
  FOR wgs_index IN 0 .. cardinality(wgs_values) / wgs_width - 1 LOOP
    wgs_call := wgs_values[wgs_index * wgs_width + 1 : (wgs_index + 1) * wgs_width];
    ${body}
      INTO wgs_row;
    RETURN NEXT to_jsonb(wgs_row);
  END LOOP;
END
$wgs$;`;
}

/** What an element of an array literal must escape (pg's own conversion escapes every element). */
const ESCAPED = /["\\]/;
const EACH_ESCAPED = new RegExp(ESCAPED.source, 'g');

/**
 * `values` as PostgreSQL's text[] literal, exactly as pg would write the array: each element
 * quoted, a quote or backslash in it escaped, null as NULL. Only an element with one of those is
 * rewritten, where pg runs two replacements over every element: its conversion was 7% of the
 * bytes a paid call allocated at `3dbbabb`, this one 4% (the answers' JSON is most of it).
 */
export function textArrayLiteral(values: readonly (string | null)[]): string {
  let literal = '{';
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (i > 0) literal += ',';
    literal += value === null ? 'NULL' : `"${ESCAPED.test(value) ? value.replace(EACH_ESCAPED, '\\$&') : value}"`;
  }
  return `${literal}}`;
}

/** One statement calling the batch function with the calls' values, in order; each row is `{ row: jsonb }`. */
export function batchCall(batched: BatchedStatement, calls: QueryConfig[]): QueryConfig {
  const width = calls[0]!.values!.length;
  const values: (string | null)[] = [];
  for (const call of calls) {
    if (call.name !== batched.statementName || call.values!.length !== width) throw new Error(`not a ${batched.statementName} call`);
    for (const value of call.values!) {
      const text = prepareValue(value);
      if (typeof text !== 'string' && text !== null) throw new Error(`${batched.statementName}: a value that is not text`);
      values.push(text);
    }
  }
  return prepared(
    `${batched.statementName}-batch`,
    sql`SELECT row FROM ${raw(batched.functionName)}(${textArrayLiteral(values)}::text[], ${width}::int) AS row`,
  );
}
