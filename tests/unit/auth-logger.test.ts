import { afterEach, describe, expect, it, vi } from 'vitest';
import { authOptions } from '@/server/auth/auth-options';

// Anyone can send a session cookie that does not decode, on every request: next-auth printed a full
// stack trace for each (outside audit). It is one warning line now; every other error as before.

afterEach(() => vi.restoreAllMocks());

describe("next-auth's logger", () => {
  it('says a cookie that does not decode in one line, and passes every other error on whole', () => {
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const failed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const decodeFailure = Object.assign(new Error('Invalid Compact JWE'), { name: 'JWEInvalid' });
    authOptions.logger!.error!('JWT_SESSION_ERROR', { error: decodeFailure, message: decodeFailure.message });
    expect(warned.mock.calls).toEqual([['[auth] a session cookie that does not decode was ignored']]);
    expect(failed).not.toHaveBeenCalled();
    const other = new Error('callback failed');
    authOptions.logger!.error!('OAUTH_CALLBACK_ERROR', other);
    expect(failed.mock.calls).toEqual([['[next-auth][error][OAUTH_CALLBACK_ERROR]', other]]);
  });
});
