import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CATALOG } from '@/server/domain/errors';

describe('error catalog', () => {
  it('uses the status codes of interface-v1.md §7 and CONTRACT.md §2', () => {
    const byStatus = Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, entry]) => [code, entry.status]));
    expect(byStatus).toMatchObject({
      invalid_request: 400,
      missing_idempotency_key: 400,
      invalid_idempotency_key: 400,
      invalid_api_key: 401,
      quota_exhausted: 402,
      forbidden: 403,
      not_found: 404,
      method_not_allowed: 405,
      idempotency_key_in_use: 409,
      payload_too_large: 413,
      unsupported_media_type: 415,
      validation_error: 422,
      idempotency_key_reused: 422,
      rate_limited: 429,
      internal_error: 500,
      provider_unavailable: 503,
      output_interrupted: 200,
    });
  });

  it('output_interrupted only ends an event stream (CONTRACT.md §8), and says the units were charged', async () => {
    const { isStreamOnly } = await import('@/server/contract/error-catalog');
    expect(Object.keys(ERROR_CATALOG).filter((code) => isStreamOnly(code as keyof typeof ERROR_CATALOG))).toEqual(['output_interrupted']);
    expect(ERROR_CATALOG.output_interrupted.message).toMatch(/units were charged/);
    expect(ERROR_CATALOG.provider_unavailable.message).toMatch(/No units were charged/);
  });

  it('carries validation issues in details', () => {
    const error = ApiError.validation([{ path: 'input', code: 'too_small', message: 'input: too short' }]);
    expect(error.status).toBe(422);
    expect(error.details).toEqual({ issues: [{ path: 'input', code: 'too_small', message: 'input: too short' }] });
    expect(error.message).toBe('input: too short');
  });
});
