import { initTRPC, TRPCError } from '@trpc/server';
import { ERROR_CATALOG, isApiError } from '../domain/errors';
import type { Actor } from '../domain/actor';
import type { OperatorSession } from '../auth/session';
import { ROLE_DESCRIPTIONS, roleAllows, type OperatorRole } from '../contract/dashboard/roles';
import type { TrpcContext } from './context';
import { apiErrorData, toTRPCError } from './error-map';
import { isUnavailableError } from './response-meta';
import { STORE_UNAVAILABLE_MESSAGE } from '../db/store-unavailable';

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    // Unexpected failures say nothing about their insides (SQL, stack) to the browser; the database
    // away says so (answered 503 with Retry-After: response-meta.ts).
    const hidden = error.code === 'INTERNAL_SERVER_ERROR';
    const { stack: _stack, ...data } = shape.data;
    const unavailable = isUnavailableError(error);
    const api = apiErrorData(error.cause);
    // tRPC's own input validation says its issues as JSON; the first issue's sentence is what a form shows.
    const inputIssue = !isApiError(error.cause) && api.issues?.length ? (api.issues[0] as { message: string }).message : undefined;
    return {
      ...shape,
      message: unavailable ? STORE_UNAVAILABLE_MESSAGE : hidden ? ERROR_CATALOG.internal_error.message : (inputIssue ?? shape.message),
      data: { ...data, ...(unavailable ? { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } : {}), ...api },
    };
  },
});

/** Every ApiError thrown by the domain leaves a procedure as the tRPC code of its HTTP status. */
const mapApiErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && isApiError(result.error.cause)) throw toTRPCError(result.error.cause);
  return result;
});

/** Whether any string in an input holds U+0000, which PostgreSQL's text cannot store or match. */
function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || holdsNul(item, depth + 1));
}

/** A NUL in any input is refused as invalid (422), for every procedure, before a query fails on it. */
const refuseNul = t.middleware(async ({ getRawInput, next }) => {
  if (holdsNul(await getRawInput())) {
    throw new TRPCError({ code: 'UNPROCESSABLE_CONTENT', message: 'Text must not contain the NUL character (U+0000).' });
  }
  return next();
});

const requireOperator = t.middleware(({ ctx, next }) => {
  if (!ctx.session || !ctx.actor) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to use the dashboard.' });
  return next({ ctx: { ...ctx, session: ctx.session as OperatorSession, actor: ctx.actor as Actor } });
});

/** The one place roles are enforced: a procedure refuses (FORBIDDEN) an operator below its role. */
const requireRole = (minimum: OperatorRole) =>
  t.middleware(({ ctx, next }) => {
    if (!roleAllows(ctx.session?.role, minimum)) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `This needs the ${minimum} role (${ROLE_DESCRIPTIONS[minimum]}).` });
    }
    return next();
  });

/** The portal's procedures: a live portal session, whose key is the only one they touch. */
const requirePortal = t.middleware(({ ctx, next }) => {
  if (!ctx.portal) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to the portal with your API key.' });
  return next({ ctx: { ...ctx, portal: ctx.portal } });
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
/** Every dashboard procedure is an operator procedure (there is no public one) of a minimum role. */
const operatorProcedure = t.procedure.use(mapApiErrors).use(requireOperator).use(refuseNul);
/** Customer portal procedures: no operator session is ever in their context (portal-context.ts). */
export const portalProcedure = t.procedure.use(mapApiErrors).use(requirePortal).use(refuseNul);
/** Reads: every role. */
export const viewerProcedure = operatorProcedure.use(requireRole('viewer'));
/** Changes to packages, keys and providers (not their keys). */
export const adminProcedure = operatorProcedure.use(requireRole('admin'));
/** Provider keys and operators. */
export const ownerProcedure = operatorProcedure.use(requireRole('owner'));
