import { ApiError } from '../domain/errors';
import { toTRPCError } from './error-map';

// Usage exports stream up to a million rows each, seconds of this instance's CPU: a batch of ten
// (or ten tabs) pinned a core for minutes. At most EXPORTS_AT_ONCE are read here at once. An export
// takes its slot when its first line is asked for, not when it is made (tRPC drops the lines of
// a request that cannot stream them unread), and gives it back when its lines end, fail or their
// reader stops them; another export's first line is then a 429 (TOO_MANY_REQUESTS) until one ends.

const EXPORTS_AT_ONCE = 2;
let reading = 0;

export function inExportSlot<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T> {
  async function* slotted(): AsyncGenerator<T> {
    if (reading >= EXPORTS_AT_ONCE) {
      const message = `${EXPORTS_AT_ONCE} usage exports are running on this instance; try again when one has finished.`;
      throw toTRPCError(new ApiError('rate_limited', { message, retryAfter: 5 }));
    }
    reading++;
    try {
      yield* start();
    } finally {
      reading--;
    }
  }
  return slotted();
}
