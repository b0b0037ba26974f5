import pg from 'pg';
import { vi } from 'vitest';

// The SQL statements this process sends to PostgreSQL (every pool, every client), counted at the
// driver. The key lookup is left out: it is cached for KEY_CACHE_TTL_MS, so it belongs to no
// request in steady state, and whether a test is slower than the TTL must not decide its outcome.

const isKeyLookup = (sql: string) => sql.includes('WHERE k.hash = $1');

/** Starts recording; `statements()` reads what was sent so far, `stop()` ends the recording. */
export function recordStatements(): { statements(): string[]; stop(): void } {
  const sent: string[] = [];
  const query = pg.Client.prototype.query;
  const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const config = args[0];
    sent.push(typeof config === 'string' ? config : String((config as { text?: string }).text));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query);
  return { statements: () => sent.filter((sql) => !isKeyLookup(sql)), stop: () => spy.mockRestore() };
}
