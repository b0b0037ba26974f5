import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/server/domain/errors';
import { toTRPCError } from '@/server/trpc/error-map';
import { trpcResponseMeta } from '@/server/trpc/response-meta';

// The headers of the dashboard's and portal's tRPC answers: a limit's 429 says when to come back.

describe("tRPC answers' headers", () => {
  it('a refusal with a wait (429) carries Retry-After in whole seconds, at least 1', () => {
    const limited = toTRPCError(new ApiError('rate_limited', { retryAfter: 12.2 }));
    const meta = trpcResponseMeta({ errors: [limited] });
    expect(meta.status).toBeUndefined(); // tRPC's own status for TOO_MANY_REQUESTS (429)
    expect(meta.headers.get('retry-after')).toBe('13');
    expect(meta.headers.get('cache-control')).toBe('no-store');
    expect(trpcResponseMeta({ errors: [toTRPCError(new ApiError('rate_limited', { retryAfter: 0.2 }))] }).headers.get('retry-after')).toBe(
      '1',
    );
  });

  it('other errors carry none, and a success neither', () => {
    expect(trpcResponseMeta({ errors: [toTRPCError(new ApiError('not_found'))] }).headers.get('retry-after')).toBeNull();
    expect(trpcResponseMeta({ errors: [new TRPCError({ code: 'BAD_REQUEST' })] }).headers.get('retry-after')).toBeNull();
    expect(trpcResponseMeta({ errors: [] }).headers.get('retry-after')).toBeNull();
  });
});
