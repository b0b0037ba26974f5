import { describe, expect, it } from 'vitest';
import { providerEntryErrors, providerIssueErrors, providerIssueText } from '@/components/providers/provider-errors';
import { providerSchema } from '@/server/contract/package-schema';
import { validationIssuesOf } from '@/server/domain/errors';
import { providerEntryIssues } from '@/server/domain/providers/provider-guard';
import { zodValidationError } from '@/server/domain/zod-issues';

// "Add a provider" showed internal names and the validator's text, twice: `base_url: base_url must
// be an http:// or https:// URL`, `prices: Invalid input: expected record, received array`, and the
// test form `model: type the model id ...` (dashboard audit). Each error names the field by its
// label on the form and says what it allows.

/** The issues the server answers for an entry its schema refuses (providers.save). */
function serverIssues(entry: Record<string, unknown>) {
  const parsed = providerSchema.safeParse(entry);
  if (parsed.success) throw new Error('expected a refusal');
  return validationIssuesOf(zodValidationError(parsed.error, entry));
}

const bad = { type: 'openai', base_url: 'ftp://models.example', api_key_env: 'lower-case', prices: [1, 2] };

describe('the provider form', () => {
  it('says what each field allows, by its label, when it judges the entry itself', () => {
    expect(providerEntryErrors(bad)).toEqual({
      base_url: 'Base URL must be an http:// or https:// URL',
      api_key_env: 'Key environment variable must name an environment variable: capital letters, digits and _, e.g. MAIN_API_KEY',
      prices: expect.stringMatching(/^Prices must be a JSON object of model ids and their prices, such as \{"gpt-4o-mini"/),
    });
    expect(providerEntryErrors({ type: 'openai', prices: { 'gpt-4o-mini': { input_per_mtok: -1 } } }).prices).toMatch(
      /^Prices \(gpt-4o-mini input_per_mtok\) must be /,
    );
    expect(providerEntryErrors({ type: 'openai', base_url: 'https://u:p@models.example' }).base_url).toBe(
      'Base URL must not hold credentials: name the secret in the Key environment variable',
    );
    expect(providerEntryErrors({ type: 'azure' })).toEqual({
      resource_name: 'resource_name: an azure provider needs resource_name or the Base URL',
    });
    expect(providerEntryErrors({ type: 'openai', base_url: 'https://models.example/v1', api_key_env: 'OPENAI_API_KEY' })).toEqual({});
  });

  it('says a price must be a number, not a whole number (admin pages audit: "0.15" as text read "must be a whole number")', () => {
    for (const price of ['0.15', 'abc']) {
      expect(providerEntryErrors({ type: 'openai', prices: { 'gpt-x': { input_per_mtok: price } } }).prices).toBe(
        'Prices (gpt-x input_per_mtok) must be a number',
      );
    }
    expect(providerEntryErrors({ type: 'openai', prices: { 'gpt-x': { input_per_mtok: 0.15 } } })).toEqual({});
  });

  it("labels the server's issues the same way, without the internal name", () => {
    const errors = providerIssueErrors(serverIssues({ type: 'openai', base_url: 'ftp://models.example' }));
    expect(errors).toEqual({ base_url: 'Base URL must be an http:// or https:// URL' });
    expect(providerIssueErrors(serverIssues({ type: 'openai', prices: [1, 2] })).prices).toMatch(
      /^Prices must be a JSON object of model ids/,
    );
    expect(providerIssueErrors(serverIssues({ type: 'openai', api_key_env: 'lower' })).api_key_env).toMatch(
      /^Key environment variable must name an environment variable/,
    );
    const guarded = providerIssueErrors(providerEntryIssues({ type: 'openai', api_key_env: 'DATABASE_URL' }, ''));
    expect(guarded.api_key_env).toMatch(/^Key environment variable: DATABASE_URL is a variable the service itself reads/);
  });

  it("names the test form's model by its label", () => {
    const issue = { path: 'model', message: 'model: type the model id to test with (no package names one for this provider yet)' };
    expect(providerIssueText(issue)).toBe('Model: type the model id to test with (no package names one for this provider yet)');
  });
});
