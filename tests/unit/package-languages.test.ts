import { describe, expect, it } from 'vitest';
import { packageDefinitionSchema } from '@/server/contract/package-schema';

// Requests match a language ignoring case (`EN-us` passes a package listing `en-US`), so a list
// naming `en` and `EN` names one language twice; it was accepted as unique (settings audit).

const withLanguages = (operation: 'audio.speech' | 'audio.transcribe', languages: string[]) => ({
  slug: 'languages',
  name: 'Languages',
  quota_units: 100,
  limits: { requests_per_minute: 60, concurrency: 2 },
  operations: { [operation]: { engine: 'local', units: 1, languages } },
});

describe("a package's languages", () => {
  it('are unique ignoring case, for speech and transcription', () => {
    for (const operation of ['audio.speech', 'audio.transcribe'] as const) {
      expect(packageDefinitionSchema.safeParse(withLanguages(operation, ['en', 'de', 'en-US'])).success).toBe(true);
      const twice = packageDefinitionSchema.safeParse(withLanguages(operation, ['en-us', 'en-US']));
      expect(twice.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
        [`operations.${operation}.languages`, 'entries must be unique ignoring case (languages are matched so: en and EN are one)'],
      ]);
    }
  });
});
