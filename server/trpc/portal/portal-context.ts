import { cookies, headers } from 'next/headers';
import { portalToken } from '../../auth/portal-cookie';
import type { PrismaClient } from '../../db/generated/client';
import { getPrisma } from '../../db/client';
import { findPortalSession, type PortalSession } from '../../domain/portal/portal-session';
import type { TrpcContext } from '../context';

// The portal's context never holds an operator session (so every operator procedure refuses it),
// and the dashboard's context never holds a portal session: the two sign-ins do not mix.

export function createPortalInnerContext(portal: PortalSession | null, db: PrismaClient = getPrisma()): TrpcContext {
  return { db, session: null, actor: null, portal };
}

/** The context of the current request: the portal cookie's live session, or none. */
export async function createPortalRequestContext(): Promise<TrpcContext> {
  const db = getPrisma();
  const token = portalToken(await headers(), await cookies());
  return createPortalInnerContext(await findPortalSession(db, token), db);
}
