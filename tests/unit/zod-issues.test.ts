import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatZodIssues } from '@/server/domain/zod-issues';

// A refused field is said once, by its own bound: zod's int() adds JavaScript's safe-integer bound,
// which named 9007199254740991 beside the field's 1,000,000 (packages audit).

const schema = z.strictObject({ units: z.number().int().min(0).max(1_000_000), count: z.number().int() });

const issuesOf = (input: unknown) => {
  const parsed = schema.safeParse(input);
  if (parsed.success) throw new Error('expected a refusal');
  return formatZodIssues(parsed.error, input);
};

describe('formatZodIssues', () => {
  it("says a field's own bound alone when a number is past it and past the safe integers", () => {
    expect(issuesOf({ units: 1e20, count: 1 })).toEqual([
      { path: 'units', code: 'too_big', message: 'units: Too big: expected number to be <=1000000' },
    ]);
    expect(issuesOf({ units: -1e20, count: 1 })).toEqual([
      { path: 'units', code: 'too_small', message: 'units: Too small: expected number to be >=0' },
    ]);
  });

  it('keeps the safe-integer bound where the field has no bound of its own', () => {
    expect(issuesOf({ units: 1, count: 1e20 })).toEqual([
      { path: 'count', code: 'too_big', message: 'count: Too big: expected int to be <=9007199254740991' },
    ]);
  });
});
