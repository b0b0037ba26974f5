import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_MESSAGE } from '../db/store-unavailable';

// The answer of a page or form route (not /v1, whose answers are envelopes) while the database or
// Redis is away: 503 with Retry-After, never 500.

export function storeUnavailableResponse(): Response {
  return new Response(`${STORE_UNAVAILABLE_MESSAGE}\n`, {
    status: 503,
    headers: {
      'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
      'Cache-Control': 'no-store',
      'Content-Type': 'text/plain; charset=utf-8',
    },
  });
}

/** A route handler that answers 503 with Retry-After when the database or Redis is away; any other failure is its own. */
export function orUnavailable<A extends unknown[]>(handler: (...args: A) => Promise<Response>): (...args: A) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (isStoreUnavailable(error)) return storeUnavailableResponse();
      throw error;
    }
  };
}
