import { cookies, headers } from 'next/headers';
import { portalToken } from '../../auth/portal-cookie';
import { getConfig } from '../../config';
import type { PrismaClient } from '../../db/generated/client';
import { getPrisma } from '../../db/client';
import { findPortalSession, type PortalSession } from '../../domain/portal/portal-session';
import { publicOrigin } from '../../auth/forwarded';
import { clientAddress, forwardedHeadersTrusted } from '../../auth/client-address';
import { acceptedConnection } from '../../auth/connection';
import type { TrpcContext } from '../context';

// The portal's context never holds an operator session (so every operator procedure refuses it),
// and the dashboard's context never holds a portal session: the two sign-ins do not mix.

export function createPortalInnerContext(
  portal: PortalSession | null,
  db: PrismaClient = getPrisma(),
  origin?: string,
  address?: string,
): TrpcContext {
  return { db, session: null, actor: null, portal, origin, address };
}

/** The context of the current request (`req` on the portal's endpoint): the portal cookie's live session, or none. */
export async function createPortalRequestContext(req?: Request): Promise<TrpcContext> {
  const db = getPrisma();
  const token = portalToken(await headers(), await cookies());
  const config = getConfig();
  const connection = acceptedConnection();
  const origin = req ? publicOrigin(req, config.PUBLIC_BASE_URL, forwardedHeadersTrusted(connection)) : undefined;
  const address = req ? clientAddress(connection, req.headers) : undefined;
  return createPortalInnerContext(await findPortalSession(db, token), db, origin, address);
}
