import { randomUUID } from 'node:crypto';
import { getPrisma } from '../db/client';
import type { OperatorRole } from '../contract/dashboard/roles';

// Dashboard sessions live in the session cookie (a signed JWT) *and* as a row here. The row lets
// sign-out end a session on the server: a copy of the cookie taken before sign-out no longer
// signs anyone in, which a JWT alone cannot promise.

/** Records a sign-in; the returned id goes into the session's JWT. */
export async function startOperatorSession(operatorId: string, maxAgeSeconds: number): Promise<string> {
  const id = randomUUID();
  await getPrisma().operatorSession.create({
    data: { id, operatorId, expiresAt: new Date(Date.now() + maxAgeSeconds * 1000) },
  });
  return id;
}

/** Sign-out: the session ends now, on every instance. Ending an ended session changes nothing. */
export async function endOperatorSession(sessionId: string): Promise<void> {
  await getPrisma().operatorSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { endedAt: new Date() } });
}

/**
 * The operator's role while the session is neither ended nor expired and its operator is not
 * disabled; null otherwise. Read on every request, so a role changed by an owner applies at once.
 */
export async function liveSessionRole(sessionId: string, operatorId: string): Promise<OperatorRole | null> {
  const live = await getPrisma().operatorSession.findFirst({
    where: { id: sessionId, operatorId, endedAt: null, expiresAt: { gt: new Date() }, operator: { disabledAt: null } },
    select: { operator: { select: { role: true } } },
  });
  return live?.operator.role ?? null;
}

/** True while the session is neither ended nor expired and its operator is not disabled. */
export async function isLiveOperatorSession(sessionId: string, operatorId: string): Promise<boolean> {
  return (await liveSessionRole(sessionId, operatorId)) !== null;
}

/** Housekeeping: rows of sessions that ended or expired serve nothing once a day has passed. */
export async function deleteFinishedOperatorSessions(): Promise<number> {
  const dayAgo = new Date(Date.now() - 24 * 60 * 60 * 1000);
  const { count } = await getPrisma().operatorSession.deleteMany({
    where: { OR: [{ expiresAt: { lt: dayAgo } }, { endedAt: { lt: dayAgo } }] },
  });
  return count;
}
