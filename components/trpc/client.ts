'use client';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@/server/trpc/app-router';
import { TRPC_MAX_BATCH_SIZE } from '@/server/contract/dashboard/trpc-limits';

// Client components only mutate; reads are server-rendered through createCaller.
export const trpc = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: '/api/trpc', maxItems: TRPC_MAX_BATCH_SIZE })] });

export interface FieldIssue {
  path: string;
  code: string;
  message: string;
}

/** A failed call as a message and the field issues the server reported (same catalog as the API). */
export function describeError(error: unknown): { message: string; issues: FieldIssue[]; code: string | null } {
  if (error instanceof TRPCClientError) {
    const data = error.data as { apiCode?: string | null; issues?: FieldIssue[] | null; code?: string } | undefined;
    if (data?.code === 'UNAUTHORIZED') return { message: 'Your session has ended. Sign in again.', issues: [], code: 'unauthorized' };
    return { message: error.message, issues: data?.issues ?? [], code: data?.apiCode ?? null };
  }
  return { message: 'The request failed. Check your connection and try again.', issues: [], code: null };
}
