import type { QueryConfig } from 'pg';
import type { Sql } from 'sql-template-tag';

// Statements the ORM cannot say (ARCHITECTURE.md, "SQL") are written with sql-template-tag: each
// value stands, by its own name, where the SQL uses it, and pg receives numbered parameters. The
// name makes pg prepare the statement once per connection; a name must always carry the same text,
// so a statement never varies its shape.

/** A named prepared statement from a tagged SQL template. */
export function prepared(name: string, query: Sql): QueryConfig {
  return { name, text: query.text, values: query.values };
}

/**
 * A report's statement, planned for its own values at every run: unnamed, so PostgreSQL never
 * settles on the generic plan it may choose after five runs of a named one. For a filter a report
 * takes or not (`(key IS NULL OR api_key_id = key)`) that plan read the whole of usage_events for
 * a key with a handful of events (scale audit: 12 ms, then 167 ms from the sixth run on). A
 * report runs seldom and long: planning it each time costs nothing that shows.
 */
export function plannedEachRun(query: Sql): QueryConfig {
  return { text: query.text, values: query.values };
}
