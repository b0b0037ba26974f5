import { ApiError } from '../../domain/errors';

// Usage exports stream up to a million rows each, seconds of this instance's CPU: a batch of ten
// (or ten tabs) pinned a core for minutes. At most EXPORTS_AT_ONCE run here at once; another is a
// 429 until one ends. An export holds its slot until its lines end, fail or their reader stops.

const EXPORTS_AT_ONCE = 2;
let running = 0;

/** `start()`'s lines, holding one of this instance's export slots while they are read; 429 when none is free. */
export function inExportSlot<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T> {
  if (running >= EXPORTS_AT_ONCE) {
    throw new ApiError('rate_limited', {
      message: `${EXPORTS_AT_ONCE} usage exports are running on this instance; try again when one has finished.`,
      retryAfter: 5,
    });
  }
  running++;
  let held = true;
  const release = () => {
    if (held) running--;
    held = false;
  };
  const lines = start();
  const slotted = {
    async next() {
      try {
        const result = await lines.next();
        if (result.done) release();
        return result;
      } catch (error) {
        release();
        throw error;
      }
    },
    async return(value?: unknown) {
      release();
      return lines.return(value as never);
    },
    async throw(error?: unknown) {
      release();
      return lines.throw(error);
    },
    [Symbol.asyncIterator]() {
      return slotted;
    },
  };
  return slotted as unknown as AsyncGenerator<T>;
}
