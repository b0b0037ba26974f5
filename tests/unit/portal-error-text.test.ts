import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { portalErrorText } from '@/components/portal/confirm-code';

// A refused portal change is said in a sentence: the field's message, capitalised, with one full
// stop (an empty URL read "The endpoint URL is required: an https:// address.." : dashboard audit).

const refused = (message: string) =>
  new TRPCClientError('refused', { result: { error: { data: { issues: [{ path: 'url', code: 'required', message }] } } } as never });

describe('portalErrorText', () => {
  it('capitalises the issue and ends it with one full stop', () => {
    expect(portalErrorText(refused('The endpoint URL is required: an https:// address.'))).toBe(
      'The endpoint URL is required: an https:// address.',
    );
    expect(portalErrorText(refused('must be an absolute URL'))).toBe('Must be an absolute URL.');
  });
});
