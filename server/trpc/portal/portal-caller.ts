import { createPortalCaller } from './portal-router';
import { createPortalRequestContext } from './portal-context';

/** For the portal's server components: the signed-in customer's caller and session, or null (show the sign-in form). */
export async function portalCaller() {
  const ctx = await createPortalRequestContext();
  if (!ctx.portal) return null;
  return { caller: createPortalCaller(ctx), session: ctx.portal };
}
