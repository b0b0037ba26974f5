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
