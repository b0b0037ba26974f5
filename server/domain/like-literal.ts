/**
 * A search text as Prisma's `contains` / `startsWith` should match it: Prisma passes the value to
 * PostgreSQL's LIKE unescaped, where `%` and `_` are wildcards (a search for `%` matched everything).
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}
