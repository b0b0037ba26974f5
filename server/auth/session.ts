import { getServerSession } from 'next-auth';
import type { Actor } from '../domain/actor';
import type { OperatorRole } from '../contract/dashboard/roles';
import { headers } from 'next/headers';
import { cameOverHttps } from './forwarded';
import { authOptionsFor } from './auth-options';
import { StoreUnavailableError } from '../db/store-unavailable';

export interface OperatorSession {
  operatorId: string;
  email: string;
  role: OperatorRole;
  expires: string;
}

/**
 * The signed-in operator of the current request (server components, route handlers), or null;
 * throws when the database is away (StoreUnavailableError).
 * Each answer costs a JWT decode and a database read: a page render asks once, through React's
 * cache in app/(dashboard)/operator.ts (React lives in Next's bundle, not in this package).
 */
export async function getOperatorSession(): Promise<OperatorSession | null> {
  const session = await getServerSession(authOptionsFor(cameOverHttps(await headers())));
  // Neither signed in nor out: the page or tRPC call answers 503 with Retry-After, as /v1 does.
  if (session?.storeUnavailable) throw new StoreUnavailableError();
  const id = session?.user?.id;
  const email = session?.user?.email;
  const role = session?.user?.role;
  // The session callback names an operator only for a live session (auth-options.ts).
  if (!session || !id || !email || !role || !session.sessionId) return null;
  return { operatorId: id, email, role, expires: session.expires };
}

export function operatorActor(session: OperatorSession): Actor {
  return { type: 'operator', id: session.operatorId, label: session.email };
}
