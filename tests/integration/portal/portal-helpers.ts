import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { issueKey } from '@/server/domain/keys/issue-key';
import { findPortalSession, signInWithKey } from '@/server/domain/portal/portal-session';
import { createPortalInnerContext } from '@/server/trpc/portal/portal-context';
import { createPortalCaller } from '@/server/trpc/portal/portal-router';
import { seedPackage, uniqueSlug } from '../trpc/helpers';

let addressCounter = 0;

/** A client address of its own (a 10.x address: counted by the failed-authentication limit). */
export const freshAddress = () => `10.77.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

/** A package of its own and an active key on it, with its secret. */
export async function keyOnFreshPackage(prefix = 'portal', quota = 100) {
  const slug = uniqueSlug(prefix);
  await seedPackage(slug, quota);
  const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug });
  return { slug, id: issued.id, secret: issued.key };
}

/** Signs in with the secret as the portal's route does, and gives the token and a caller of its session. */
export async function portalSignIn(secret: string) {
  const { token } = await signInWithKey(getPrisma(), { secret, address: freshAddress() });
  const session = await findPortalSession(getPrisma(), token);
  if (!session) throw new Error('the new session is not live');
  return { token, session, caller: createPortalCaller(createPortalInnerContext(session)) };
}
