import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { openAiFailureKind } from '@/server/providers/openai/failure-kind';

// Which failures of an OpenAI-compatible server move on to the next engine (all but 'rejected').

const status = (code: number) => OpenAI.APIError.generate(code, { error: { message: 'x' } }, 'x', new Headers());

describe('openAiFailureKind', () => {
  it('sorts HTTP statuses', () => {
    expect(openAiFailureKind(status(429))).toBe('rate_limited');
    expect(openAiFailureKind(status(500))).toBe('server_error');
    expect(openAiFailureKind(status(503))).toBe('server_error');
    expect(openAiFailureKind(status(408))).toBe('timeout');
    expect(openAiFailureKind(status(401))).toBe('not_configured');
    expect(openAiFailureKind(status(404))).toBe('not_configured');
    expect(openAiFailureKind(status(400))).toBe('rejected');
    expect(openAiFailureKind(status(422))).toBe('rejected');
  });

  it('sorts connection failures, timeouts and anything else', () => {
    expect(openAiFailureKind(new OpenAI.APIConnectionTimeoutError())).toBe('timeout');
    expect(openAiFailureKind(new OpenAI.APIConnectionError({ message: 'refused' }))).toBe('connection');
    expect(openAiFailureKind(new SyntaxError('Unexpected token'))).toBe('malformed');
  });
});
