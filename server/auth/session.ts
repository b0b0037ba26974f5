import { getServerSession } from 'next-auth';
import { getPrisma } from '../db/client';
import type { Actor } from '../domain/actor';
import { authOptions } from './auth-options';

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
  if (!session || !id || !email) return null;
  // A JWT outlives a change in the database: an operator disabled since sign-in is refused at once.
  const operator = await getPrisma().operator.findUnique({ where: { id }, select: { disabledAt: true } });
  if (!operator || operator.disabledAt) return null;
  return { operatorId: id, email, expires: session.expires };
}

export function operatorActor(session: OperatorSession): Actor {
  return { type: 'operator', id: session.operatorId, label: session.email };
}
