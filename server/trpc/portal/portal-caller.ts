import { createPortalCaller } from './portal-router';
import { createPortalRequestContext } from './portal-context';
import { isStoreUnavailable } from '../../db/store-unavailable';
import { isMissingRecord, tellingStoreAway } from '../server-caller';

type PortalCaller = ReturnType<typeof createPortalCaller>;

/**
 * For the portal's server components: the signed-in customer's caller and session, or null (show
 * the sign-in form). A read that met the database away tells the page (`onStoreUnavailable`), whose
 * answer is then 503 with Retry-After, not Next's 500 (as the dashboard's, server-caller.ts).
 */
export async function portalCaller(onStoreUnavailable?: () => void) {
  const ctx = await createPortalRequestContext().catch((error: unknown) => {
    if (isStoreUnavailable(error)) onStoreUnavailable?.();
    throw error;
  });
  if (!ctx.portal) return null;
  return { caller: createPortalCaller(ctx, { onError: tellingStoreAway(onStoreUnavailable) }), session: ctx.portal };
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
