import { getServerSession } from 'next-auth';
import type { Actor } from '../domain/actor';
import { isUuid } from '../domain/uuid';
import { authOptions } from './auth-options';
import { isLiveOperatorSession } from './operator-sessions';

export interface OperatorSession {
  operatorId: string;
  email: string;
  expires: string;
}

/** The signed-in operator of the current request (server components, route handlers), or null. */
export async function getOperatorSession(): Promise<OperatorSession | null> {
  const session = await getServerSession(authOptions);
  const id = session?.user?.id;
  const email = session?.user?.email;
  const sessionId = session?.sessionId;
  if (!session || !id || !email || !sessionId || !isUuid(sessionId) || !isUuid(id)) return null;
  // A JWT outlives a change in the database: a session signed out, or an operator disabled, since
  // the cookie was issued is refused at once.
  if (!(await isLiveOperatorSession(sessionId, id))) return null;
  return { operatorId: id, email, expires: session.expires };
}

export function operatorActor(session: OperatorSession): Actor {
  return { type: 'operator', id: session.operatorId, label: session.email };
}
