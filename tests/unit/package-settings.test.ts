import { describe, expect, it } from 'vitest';
import { isApiError } from '@/server/domain/errors';
import { PackageSettingsCheck } from '@/server/domain/generation/package-settings';

function issuesOf(check: PackageSettingsCheck) {
  try {
    check.done();
    return [];
  } catch (error) {
    if (!isApiError(error)) throw error;
    return (error.details as { issues: { path: string; code: string }[] }).issues.map((issue) => `${issue.path}:${issue.code}`);
  }
}

describe('PackageSettingsCheck', () => {
  it('takes an allowed value, defaults to the first listed one, and to the fallback when the package lists none', () => {
    const check = new PackageSettingsCheck();
    expect(check.value('output_format', 'wav', ['mp3', 'wav'], 'mp3')).toBe('wav');
    expect(check.value('output_format', undefined, ['wav', 'mp3'], 'mp3')).toBe('wav');
    expect(check.value('output_format', undefined, undefined, 'mp3')).toBe('mp3');
    expect(check.value('style', 'anything', undefined)).toBe('anything');
    expect(issuesOf(check)).toEqual([]);
  });

  it('names every refused setting, in the order checked, in one 422', () => {
    const check = new PackageSettingsCheck();
    check.value('voice', 'nova', ['alloy']);
    check.language('language', 'de', ['en']);
    check.refuse({ path: 'text', code: 'not_allowed_by_package', message: 'too long' });
    expect(issuesOf(check)).toEqual(['voice:not_allowed_by_package', 'language:not_allowed_by_package', 'text:not_allowed_by_package']);
  });

  it("matches language tags in any case and hands on the package's spelling", () => {
    const check = new PackageSettingsCheck();
    expect(check.language('language', 'EN-us', ['en', 'en-US'])).toBe('en-US');
    expect(check.language('language', 'EN', ['en', 'en-US'])).toBe('en');
    expect(check.language('language', undefined, ['en-GB', 'en'])).toBe('en-GB');
    expect(check.language('language', 'pt-BR', undefined)).toBe('pt-BR');
    expect(issuesOf(check)).toEqual([]);
    check.language('language', 'en-GB', ['en', 'en-US']);
    expect(issuesOf(check)).toEqual(['language:not_allowed_by_package']);
  });
});
