'use client';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { PortalRouter } from '@/server/trpc/portal/portal-router';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';

// The portal's own endpoint: it reads the portal cookie only, never the operator's session.
export const portalTrpc = createTRPCClient<PortalRouter>({
  links: [httpBatchLink({ url: '/api/portal/trpc', maxItems: TRPC_MAX_BATCH_SIZE })],
});
