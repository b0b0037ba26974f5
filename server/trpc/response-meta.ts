import type { TRPCError } from '@trpc/server';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../db/store-unavailable';
import { isApiError } from '../domain/errors';

// What every tRPC answer (the dashboard's, the portal's) carries besides its body: never cached,
// a database or Redis away (a restart) answered 503 with Retry-After, as /v1 answers it, never
// 500, whether a procedure or the context (the session's lookup) met it; and a limit's refusal
// (429: webhook resends) with its Retry-After.

/** Whether a tRPC error is the database or Redis being away. */
export function isUnavailableError(error: TRPCError): boolean {
  return error.code === 'SERVICE_UNAVAILABLE' || isStoreUnavailable(error.cause);
}

/** fetchRequestHandler's responseMeta. */
export function trpcResponseMeta({ errors }: { errors: readonly TRPCError[] }): { status?: number; headers: Headers } {
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  const waits = errors.flatMap((error) => (isApiError(error.cause) && error.cause.retryAfter !== undefined ? [error.cause] : []));
  const longest = waits.sort((a, b) => b.retryAfter! - a.retryAfter!)[0];
  if (longest?.retryAfterHeader) headers.set('Retry-After', longest.retryAfterHeader);
  if (!errors.some(isUnavailableError)) return { headers };
  headers.set('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
  return { status: 503, headers };
}

/**
 * fetchRequestHandler's onError: a failure nobody expected is logged for the operator, as /v1
 * logs its own (the browser gets a sentence, never the insides); a database away is not one.
 */
export function trpcOnError({ error, path }: { error: TRPCError; path?: string }): void {
  if (error.code !== 'INTERNAL_SERVER_ERROR' || isUnavailableError(error)) return;
  console.error(`[trpc ${path ?? '(unknown procedure)'}] unexpected error`, error.cause ?? error);
}
