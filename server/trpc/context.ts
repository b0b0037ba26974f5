import type { PrismaClient } from '../db/generated/client';
import { getPrisma } from '../db/client';
import type { Actor } from '../domain/actor';
import { getOperatorSession, operatorActor, type OperatorSession } from '../auth/session';
import type { PortalSession } from '../domain/portal/portal-session';
import { ApiError } from '../domain/errors';
import { toTRPCError } from './error-map';

export interface TrpcContext {
  db: PrismaClient;
  session: OperatorSession | null;
  actor: Actor | null;
  /** A customer portal session (only on the portal's endpoint, which never reads the operator's). */
  portal?: PortalSession | null;
  /** The public origin of the portal's request: where a checkout returns to. */
  origin?: string;
  /** The client address of the portal's request (top-up checkouts are counted per address). */
  address?: string;
}

/** The context from a known session: used by tests and by the request context below. */
export function createInnerContext(session: OperatorSession | null, db: PrismaClient = getPrisma()): TrpcContext {
  // The role goes with the actor: the domain's owner-only rules read it (server/domain/actor.ts).
  return { db, session, actor: session ? { ...operatorActor(session), role: session.role } : null };
}

/** The context of the current request (the /api/trpc handler and server components). */
export async function createRequestContext(): Promise<TrpcContext> {
  return createInnerContext(await getOperatorSession());
}

/** The context of a call refused before it runs (its body broke the JSON rules: server/http/strict-json-body.ts). */
export function refusedContext(message: string): () => never {
  return () => {
    throw toTRPCError(new ApiError('invalid_request', { message }));
  };
}
