import { describe, expect, it } from 'vitest';
import { formToDefinition } from '@/components/packages/version-fields';
import { describeTestFailure, providerStatusOf } from '@/server/domain/providers/describe-test-outcome';
import { testOperationOf } from '@/server/domain/providers/provider-test-call';
import { ProviderUnavailableError } from '@/server/providers/engine';
import { refusedHost } from '@/server/providers/outbound/outbound-door';
import { PROVIDER_TYPE_INFO } from '@/server/contract/provider-types';

describe('a provider test in plain words', () => {
  const failed = (cause: unknown, kind?: ConstructorParameters<typeof ProviderUnavailableError>[2]) =>
    new ProviderUnavailableError('text failed', 5, { cause, ...kind });

  it('reads the status from the OpenAI client (status) or the AI SDK (statusCode, behind a RetryError)', () => {
    expect(providerStatusOf(failed({ status: 401 }))).toBe(401);
    expect(providerStatusOf(failed({ name: 'AI_RetryError', lastError: { statusCode: 503 } }))).toBe(503);
    expect(providerStatusOf(failed(new Error('no status')))).toBeUndefined();
  });

  it("names the status, never the provider's text", () => {
    const secretText = 'Incorrect API key provided: sk-abc***xyz';
    expect(describeTestFailure(failed({ status: 401, message: secretText }), 10_000, false)).toBe('The provider refused the key (401).');
    expect(describeTestFailure(failed({ statusCode: 403 }), 10_000, false)).toBe('The provider refused the key (403).');
    expect(describeTestFailure(failed({ status: 429 }), 10_000, false)).toContain('(429)');
    expect(describeTestFailure(failed({ status: 502 }), 10_000, false)).toBe('The provider failed with a server error (502).');
    expect(describeTestFailure(failed({ status: 404 }), 10_000, false)).toContain('(404)');
    expect(describeTestFailure(failed({ status: 400 }), 10_000, false)).toBe('The provider refused the request (400).');
  });

  it('says a timeout, a connection that failed and a malformed answer as such', () => {
    expect(describeTestFailure(failed(new Error('aborted'), { kind: 'timeout' }), 10_000, true)).toBe('No answer within 10 s.');
    expect(describeTestFailure(failed(new Error('x'), { kind: 'timeout' }), 8_000, false)).toBe('No answer within 8 s.');
    expect(describeTestFailure(failed(new Error('ECONNREFUSED'), { kind: 'connection' }), 10_000, false)).toMatch(/^Could not connect/);
    expect(describeTestFailure(failed(new SyntaxError('bad json'), { kind: 'malformed' }), 10_000, false)).toMatch(/not in the shape/);
  });

  it("says a call the outbound door refused as 'private or reserved address', naming the host and never an address", () => {
    const refused = failed(refusedHost('llm.example.com', 'private'), { kind: 'connection' });
    expect(describeTestFailure(refused, 10_000, false)).toBe('Not sent: llm.example.com is a private or reserved address.');
    const behindRetries = failed({ name: 'AI_RetryError', lastError: refusedHost('meta.example.com', 'metadata') });
    expect(describeTestFailure(behindRetries, 10_000, false)).toBe(
      'Not sent: meta.example.com is a private or reserved address that is never reached (link-local or cloud metadata).',
    );
  });

  it('tests each type with its cheapest operation', () => {
    expect(testOperationOf(PROVIDER_TYPE_INFO.anthropic.operations)).toBe('text.generate');
    expect(testOperationOf(PROVIDER_TYPE_INFO.assemblyai.operations)).toBe('audio.transcribe');
    expect(testOperationOf(PROVIDER_TYPE_INFO.elevenlabs.operations)).toBe('audio.transcribe');
    expect(testOperationOf(PROVIDER_TYPE_INFO.luma.operations)).toBe('images.generate');
    expect(testOperationOf(PROVIDER_TYPE_INFO.replicate.operations)).toBe('images.generate');
    expect(testOperationOf([])).toBeUndefined();
  });
});

describe("the package form's engines", () => {
  const form = (engines: string[]) => {
    const data = new FormData();
    data.set('text.generate|enabled', 'on');
    for (const engine of engines) data.append('text.generate|engine', engine);
    data.set('text.generate|units', '1');
    return formToDefinition(data) as { operations: Record<string, { engine: unknown }> };
  };

  it("one engine is the engine; several, in the form's order, are the fallback list", () => {
    expect(form(['local']).operations['text.generate']!.engine).toBe('local');
    expect(form(['main:gpt-5-mini', ' local ']).operations['text.generate']!.engine).toEqual(['main:gpt-5-mini', 'local']);
  });
});
