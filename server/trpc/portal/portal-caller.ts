import { createPortalCaller } from './portal-router';
import { createPortalRequestContext } from './portal-context';
import { isMissingRecord } from '../server-caller';

type PortalCaller = ReturnType<typeof createPortalCaller>;

/** For the portal's server components: the signed-in customer's caller and session, or null (show the sign-in form). */
export async function portalCaller() {
  const ctx = await createPortalRequestContext();
  if (!ctx.portal) return null;
  return { caller: createPortalCaller(ctx), session: ctx.portal };
}

/**
 * Back from a top-up checkout: its state, or null when the session is not this key's top-up. A
 * failure to settle it now (Stripe or the database slow to answer) is shown as still processing,
 * so the page checks again instead of saying nothing about the payment.
 */
export async function topUpReturnOf(caller: PortalCaller, sessionId: string) {
  try {
    return await caller.topUpReturn({ sessionId });
  } catch (error) {
    return isMissingRecord(error) ? null : { state: 'processing' as const };
  }
}
