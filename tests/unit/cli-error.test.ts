import { describe, expect, it } from 'vitest';
import { errorText, plainMessage } from '@/scripts/lib/cli-error';

describe('the CLI reports an unexpected error', () => {
  it("by its cause alone, without the Prisma call it came through (as Prisma's minimal format words it)", () => {
    const error = new Error("\nInvalid `prisma.provider.findMany()` invocation:\n\n\nCan't reach database server at 127.0.0.1:5432");
    expect(plainMessage(error)).toBe("Can't reach database server at 127.0.0.1:5432");
    expect(errorText(plainMessage(error), [])).toBe("error: Can't reach database server at 127.0.0.1:5432\n");
  });

  it('and any other message as it is', () => {
    expect(plainMessage(new Error('connect ECONNREFUSED 127.0.0.1:5432'))).toBe('connect ECONNREFUSED 127.0.0.1:5432');
    expect(plainMessage('a string thrown')).toBe('a string thrown');
  });
});
