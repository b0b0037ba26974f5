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
    // A 503 of the domain's own (an e-mail that could not be sent) says its own sentence.
    const storeAway = unavailable && !isApiError(error.cause);
    const api = apiErrorData(error.cause);
    // tRPC's own input validation says its issues as JSON; the first issue's sentence is what a form shows.
    const inputIssue = !isApiError(error.cause) && api.issues?.length ? (api.issues[0] as { message: string }).message : undefined;
    return {
      ...shape,
      message: storeAway ? STORE_UNAVAILABLE_MESSAGE : hidden ? ERROR_CATALOG.internal_error.message : (inputIssue ?? shape.message),
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

/**
 * What no text of an input may hold, whichever procedure takes it: U+0000, which PostgreSQL's text
 * cannot store or match, and a lone surrogate, which is no character at all (a label written with
 * one was a 500). The same rules as the API's fields (contract/fields.ts).
 */
function unstorableText(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return 'Text must not contain the NUL character (U+0000).';
    return value.isWellFormed() ? undefined : 'Text must be valid Unicode (no lone surrogates).';
  }
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const problem = unstorableText(key, depth + 1) ?? unstorableText(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** Such text in any input is refused as invalid (422), for every procedure, before a query fails on it. */
const refuseUnstorableText = t.middleware(async ({ getRawInput, next }) => {
  const problem = unstorableText(await getRawInput());
  if (problem) throw new TRPCError({ code: 'UNPROCESSABLE_CONTENT', message: problem });
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
const operatorProcedure = t.procedure.use(mapApiErrors).use(requireOperator).use(refuseUnstorableText);
/** Customer portal procedures: no operator session is ever in their context (portal-context.ts). */
export const portalProcedure = t.procedure.use(mapApiErrors).use(requirePortal).use(refuseUnstorableText);
/** Reads: every role. */
export const viewerProcedure = operatorProcedure.use(requireRole('viewer'));
/** Changes to packages, keys and providers (not their keys). */
export const adminProcedure = operatorProcedure.use(requireRole('admin'));
/** Provider keys and operators. */
export const ownerProcedure = operatorProcedure.use(requireRole('owner'));
