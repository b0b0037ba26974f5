import { z } from 'zod';

// What the product reads of a DATABASE_URL besides connecting with it: that it is a PostgreSQL URL
// naming a host, and where it points, for a line that must never show its password.

/** A PostgreSQL URL without a host would quietly mean localhost:5432, unless `?host=` names a socket. */
function namesItsHost(url: string): boolean {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  return parsed !== null && (parsed.hostname !== '' || parsed.searchParams.has('host'));
}

/** host:port/database of a PostgreSQL URL (no user or password). */
export function whereItPoints(url: string): string {
  if (!URL.canParse(url)) return 'the URL given';
  const parsed = new URL(url);
  return `${parsed.hostname || parsed.searchParams.get('host') || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
}

/** DATABASE_URL's value: one line for an empty value, else each rule it breaks. */
export const postgresUrl = z
  .string()
  .min(1, 'must not be empty (unset it for the embedded database)')
  .pipe(
    z
      .url()
      .regex(/^postgres(?:ql)?:\/\//, 'must be a PostgreSQL URL (postgres:// or postgresql://)')
      .refine(namesItsHost, 'must name its host (postgres://user:password@host:5432/database, or ?host= for a Unix socket)'),
  );
