import { cache } from 'react';
import type { OperatorRole } from '@/server/contract/dashboard/roles';
import { dashboardCallerOf, noteStoreUnavailable, pageOperatorSession } from '@wgs/server/next';

// The signed-in operator of a dashboard page, read once per render (the layout and the page both
// ask; each read is a JWT decode and a database read): React's cache is Next's, so it is applied
// here, in the app, and the server gets the session as a parameter.

export const currentOperator = cache(pageOperatorSession);

/** The page's tRPC caller for the operator of this render (server/trpc/server-caller.ts); a database away makes its answer 503. */
export async function dashboardCaller(callbackPath?: string, minimumRole?: OperatorRole) {
  return dashboardCallerOf(await currentOperator(), callbackPath, minimumRole, noteStoreUnavailable);
}
