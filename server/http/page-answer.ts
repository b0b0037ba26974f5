import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../db/store-unavailable';
import { beforeHead } from './before-head';

// A page cannot choose its status: one that throws is Next's 500. A page that met the database (or
// Redis) away notes it here, and `npm start`'s server (edge/edge-server.ts), which runs Next's
// handler inside `answeringPage`, answers that 500 as 503 with Retry-After, as /v1 does.

const pages = new AsyncLocalStorage<{ storeUnavailable: boolean }>();

/** Runs Next's handling of one request; its 500 becomes 503 with Retry-After if the page noted the store away. */
export function answeringPage<T>(res: ServerResponse, handle: () => T): T {
  const state = { storeUnavailable: false };
  beforeHead(res, (head) => {
    if (state.storeUnavailable && head[0] === 500) {
      head[0] = 503;
      res.setHeader('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
    }
  });
  return pages.run(state, handle);
}

/** Notes, for the page being rendered, that its data could not be read: the database (or Redis) is away. */
export function noteStoreUnavailable(): void {
  const state = pages.getStore();
  if (state) state.storeUnavailable = true;
}

/** A page's data, read with the database away noted (see above); any failure is rethrown. */
export async function pageData<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isStoreUnavailable(error)) noteStoreUnavailable();
    throw error;
  }
}
