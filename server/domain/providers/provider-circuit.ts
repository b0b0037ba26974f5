import sql, { raw } from 'sql-template-tag';
import { prepared } from '../../db/named-statement';
import { getConfig } from '../../config';
import type { SqlDb } from '../../db/client';

// The circuit breaker, in PostgreSQL so every instance sees it. A provider that failed
// PROVIDER_CIRCUIT_FAILURES times in a row (on any instances) is skipped for
// PROVIDER_CIRCUIT_OPEN_SECONDS wherever a later engine of the operation can answer instead
// (callEngine always calls the last one); after that calls go through again, and one more
// failure opens it again at once (the count is still at the threshold) while a success closes it.
//
// Off the hot path: each process reads the providers that have failures in one query at most
// every PROVIDER_CIRCUIT_REFRESH_MS (shared by all its requests), so a call to a healthy
// provider costs no round trip. A failure is one upsert; a success writes only when that
// snapshot (or this process) saw failures to clear.

interface CircuitState {
  failures: number;
  /** Date.now() until which the provider is skipped (0: closed). */
  openUntil: number;
}

let snapshot: { at: number; states: Map<string, CircuitState> } | undefined;
let loading: Promise<Map<string, CircuitState>> | undefined;

interface CircuitRow {
  provider: string;
  consecutive_failures: number;
  /** Milliseconds the circuit stays open, by the database's clock (so no clock skew between instances). */
  open_ms: number | null;
}

const OPEN_MS_SQL = raw(`(extract(epoch FROM open_until - now()) * 1000)::float8 AS open_ms`);

function stateOf(row: CircuitRow): CircuitState {
  return { failures: row.consecutive_failures, openUntil: row.open_ms && row.open_ms > 0 ? Date.now() + row.open_ms : 0 };
}

async function loadStates(db: SqlDb): Promise<Map<string, CircuitState>> {
  const { rows } = await db.pool.query<CircuitRow>(
    prepared(
      'wgs-provider-circuits',
      sql`SELECT provider, consecutive_failures, ${OPEN_MS_SQL} FROM provider_circuits WHERE consecutive_failures > 0`,
    ),
  );
  const states = new Map(rows.map((row) => [row.provider, stateOf(row)]));
  snapshot = { at: Date.now(), states };
  return states;
}

async function circuitStates(db: SqlDb): Promise<Map<string, CircuitState>> {
  if (snapshot && Date.now() - snapshot.at < getConfig().PROVIDER_CIRCUIT_REFRESH_MS) return snapshot.states;
  loading ??= loadStates(db).finally(() => {
    loading = undefined;
  });
  return loading;
}

const enabled = () => getConfig().PROVIDER_CIRCUIT_FAILURES > 0;

/** How many more milliseconds the provider is skipped; 0 when its circuit is closed. */
export async function providerCircuitOpenMs(db: SqlDb, provider: string): Promise<number> {
  if (!enabled()) return 0;
  let states: Map<string, CircuitState>;
  try {
    states = await circuitStates(db);
  } catch (error) {
    // The breaker only saves time: without its state every provider is tried.
    console.error("[circuit] could not read the providers' circuits", (error as Error).message);
    return 0;
  }
  return Math.max(0, (states.get(provider)?.openUntil ?? 0) - Date.now());
}

/** One more failure in a row; opens the circuit when the count reaches the threshold. */
export async function recordProviderFailure(db: SqlDb, provider: string): Promise<void> {
  if (!enabled()) return;
  const config = getConfig();
  const { rows } = await db.pool.query<CircuitRow>(
    prepared(
      'wgs-provider-circuit-failure',
      sql`INSERT INTO provider_circuits AS c (provider, consecutive_failures, open_until, updated_at)
           VALUES (${provider}, 1, CASE WHEN 1 >= ${config.PROVIDER_CIRCUIT_FAILURES}::int THEN now() + make_interval(secs => ${config.PROVIDER_CIRCUIT_OPEN_SECONDS}::int) END, now())
           ON CONFLICT (provider) DO UPDATE
              SET consecutive_failures = c.consecutive_failures + 1, updated_at = now(),
                  open_until = CASE WHEN c.consecutive_failures + 1 >= ${config.PROVIDER_CIRCUIT_FAILURES}::int
                                    THEN now() + make_interval(secs => ${config.PROVIDER_CIRCUIT_OPEN_SECONDS}::int) ELSE c.open_until END
           RETURNING provider, consecutive_failures, ${OPEN_MS_SQL}`,
    ),
  );
  const state = stateOf(rows[0]!);
  snapshot?.states.set(provider, state);
  if (state.openUntil > 0 && rows[0]!.consecutive_failures === config.PROVIDER_CIRCUIT_FAILURES) {
    console.error(
      `[circuit] provider ${provider} failed ${state.failures} times in a row: skipped for ${config.PROVIDER_CIRCUIT_OPEN_SECONDS} s`,
    );
  }
}

/**
 * A success closes the circuit for every instance: the row is cleared, and the others drop it at
 * their next refresh. Written only when this process's snapshot (re-read at most every
 * PROVIDER_CIRCUIT_REFRESH_MS) shows failures to clear, so healthy calls cost no round trip.
 */
export async function recordProviderSuccess(db: SqlDb, provider: string): Promise<void> {
  if (!enabled()) return;
  let states: Map<string, CircuitState>;
  try {
    states = await circuitStates(db);
  } catch {
    return; // nothing known to clear; the next success tries again
  }
  if (!states.delete(provider)) return;
  await db.pool.query(
    prepared(
      'wgs-provider-circuit-success',
      sql`UPDATE provider_circuits SET consecutive_failures = 0, open_until = NULL, updated_at = now()
            WHERE provider = ${provider} AND consecutive_failures > 0`,
    ),
  );
}

/** Tests: forget this process's snapshot, as a fresh instance would have none. */
export function forgetCircuitSnapshot(): void {
  snapshot = undefined;
}
