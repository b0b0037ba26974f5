import type { ServerResponse } from 'node:http';

// Node writes a response's status and headers in one call, after every layer above (Next, the
// route) has set its own; what must see or change the final head hooks that call.

/** Runs `fix` as `res`'s head goes out, with the status and headers about to be written (changeable). */
export function beforeHead(res: ServerResponse, fix: (args: Parameters<ServerResponse['writeHead']>) => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    fix(args);
    return writeHead.apply(this, args);
  } as typeof writeHead;
}
