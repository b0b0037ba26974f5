import { describe, expect, it } from 'vitest';
import { ApiError } from '@/server/domain/errors';
import { openAIError } from '@/server/http/openai/openai-errors';

// /openai/v1's error answers in OpenAI's format: their words fit a surface where the
// Idempotency-Key is optional (the official SDKs send none).

describe("/openai/v1's error answers", () => {
  it('a 503 says a retry may come, with the same Idempotency-Key only if one was sent', () => {
    const { status, body, headers } = openAIError(new ApiError('provider_unavailable', { retryAfter: 5 }));
    expect(status).toBe(503);
    expect(body.error.message).toBe(
      'The provider is unavailable. No units were charged; retry later (with the same Idempotency-Key, if one was sent).',
    );
    expect(headers).toMatchObject({ 'x-should-retry': 'true', 'retry-after': '5' });
  });

  it("keeps a 503's own words when it has them", () => {
    const { body } = openAIError(new ApiError('provider_unavailable', { message: 'The database is away.' }));
    expect(body.error.message).toBe('The database is away.');
  });
});
