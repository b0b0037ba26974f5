import { TRPCError } from '@trpc/server';
import { notFound, redirect } from 'next/navigation';
import type { OperatorSession } from '../auth/session';
import { roleAllows, type OperatorRole } from '../contract/dashboard/roles';
import { createCaller } from './app-router';
import { createInnerContext } from './context';
import { isUnavailableError } from './response-meta';

/**
 * For server components: the caller of `session`'s operator (the page's signed-in operator), or a
 * redirect to the sign-in page. Every dashboard page starts here (app/(dashboard)/operator.ts), so
 * none renders data for an unauthenticated request. A page for a role above the operator's (a
 * form to change something) is not found for them; `can` tells a page which controls to leave out.
 * `onStoreUnavailable` hears of a procedure that found the database away.
 */
export async function dashboardCallerOf(
  session: OperatorSession | null,
  callbackPath = '/',
  minimumRole: OperatorRole = 'viewer',
  onStoreUnavailable?: () => void,
) {
  const ctx = createInnerContext(session);
  if (!ctx.session) redirect(`/signin?callbackUrl=${encodeURIComponent(callbackPath)}`);
  const { role } = ctx.session;
  if (!roleAllows(role, minimumRole)) notFound();
  return {
    caller: createCaller(ctx, { onError: tellingStoreAway(onStoreUnavailable) }),
    session: ctx.session,
    can: (minimum: OperatorRole) => roleAllows(role, minimum),
  };
}

/** A server caller's onError: a procedure that met the database away tells the page (its answer is then 503, not Next's 500). */
export function tellingStoreAway(onStoreUnavailable?: () => void) {
  return ({ error }: { error: TRPCError }) => {
    if (isUnavailableError(error)) onStoreUnavailable?.();
  };
}

/** A procedure's refusal that means "no such record" for a page: not found, or an id that cannot be one. */
export const isMissingRecord = (error: unknown): boolean =>
  error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST');

/**
 * A detail page's title: what `read` found, named by `name`, or the 404 page's own when there is none. `read` is the
 * page's (React's cache), so the record is read once; a read that failed otherwise keeps the page's kind of title.
 */
export async function recordTitle<T>(read: Promise<T>, kind: string, name: (record: T) => string): Promise<{ title: string }> {
  try {
    return { title: `${kind} ${name(await read)}` };
  } catch (error) {
    return { title: isMissingRecord(error) ? 'Page not found' : kind };
  }
}

/** A detail page's read: a missing record renders the 404 page instead of an error. */
export async function orNotFound<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (isMissingRecord(error)) notFound();
    throw error;
  }
}
