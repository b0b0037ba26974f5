import { isRedisUnavailable } from './redis';

// Whether a thrown value says the database (or Redis) is away: a restart, a dropped connection, a
// full server; or that it rolled a statement back for a conflict (a deadlock). Every surface answers those 503 with Retry-After (nothing was charged, a retry is
// safe), never 500: /v1 (http/responses.ts), the portal's and the dashboard's tRPC (trpc/), /buy.

// A deadlock or serialization failure (40P01, 40001) rolled its transaction back: nothing was written, a retry is safe.
const PG_UNAVAILABLE = /^(08|57P0[1-3]|53300|40001|40P01)/;

const SOCKET_FAILURES = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'];

/** Prisma's driver adapter (adapter-pg) names the pg failure it wraps by kind (40001 and 40P01: TransactionWriteConflict). */
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionWriteConflict',
]);

/** Prisma's own codes of a database it cannot reach or that closed the connection, and of a deadlock or write conflict (P2034). */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1017', 'P2024', 'P2034']);

/** What Prisma's driver adapter reports of the pg error under a Prisma error (`meta.driverAdapterError.cause`). */
function adapterCause(error: unknown): { kind?: unknown; code?: unknown } | undefined {
  return (error as { meta?: { driverAdapterError?: { cause?: { kind?: unknown; code?: unknown } } } } | null)?.meta?.driverAdapterError
    ?.cause;
}

function isDatabaseUnavailable(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code === 'string' && (PG_UNAVAILABLE.test(code) || SOCKET_FAILURES.includes(code) || PRISMA_UNAVAILABLE.has(code))) {
    return true;
  }
  // A Unix-socket DATABASE_URL whose server is down (no socket file); a missing stored file is not this.
  if (code === 'ENOENT' && syscall === 'connect') return true;
  const cause = adapterCause(error);
  if (cause && typeof cause.kind === 'string') {
    if (ADAPTER_UNAVAILABLE.has(cause.kind)) return true;
    if (cause.kind === 'postgres' && typeof cause.code === 'string' && PG_UNAVAILABLE.test(cause.code)) return true;
  }
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout|Can't reach database server/i.test(
    message,
  );
}

/** The database was found away where its error could not travel (next-auth's session callback, auth/session.ts). */
export class StoreUnavailableError extends Error {
  constructor() {
    super('the database is unavailable');
  }
}

/** Whether a thrown value says the database or Redis is away (answered 503 with Retry-After, never 500). */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof StoreUnavailableError || isDatabaseUnavailable(error) || isRedisUnavailable(error);
}

/** The Retry-After (seconds) of an answer refused while the database or Redis is away. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/** The message of such an answer outside /v1 (the portal, the dashboard, /buy). */
export const STORE_UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable. Retry in a moment: nothing was charged or changed.';
