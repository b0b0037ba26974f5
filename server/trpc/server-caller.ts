import { TRPCError } from '@trpc/server';
import { notFound, redirect } from 'next/navigation';
import { roleAllows, type OperatorRole } from '../contract/dashboard/roles';
import { createCaller } from './app-router';
import { createRequestContext } from './context';

/**
 * For server components: the signed-in operator's caller, or a redirect to the sign-in page.
 * Every dashboard page starts here, so none renders data for an unauthenticated request.
 * A page for a role above the operator's (a form to change something) is not found for them;
 * `can` tells a page which controls to leave out.
 */
export async function dashboardCaller(callbackPath = '/', minimumRole: OperatorRole = 'viewer') {
  const ctx = await createRequestContext();
  if (!ctx.session) redirect(`/signin?callbackUrl=${encodeURIComponent(callbackPath)}`);
  const { role } = ctx.session;
  if (!roleAllows(role, minimumRole)) notFound();
  return { caller: createCaller(ctx), session: ctx.session, can: (minimum: OperatorRole) => roleAllows(role, minimum) };
}

/** A detail page's read: a missing record renders the 404 page instead of an error. */
export async function orNotFound<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) notFound();
    throw error;
  }
}
