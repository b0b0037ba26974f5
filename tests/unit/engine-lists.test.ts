import { describe, expect, it } from 'vitest';
import { isApiError } from '@/server/domain/errors';
import { parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { engineNamesOf } from '@/server/domain/engine-names';

// An operation's `engine` is one engine name or an ordered list of 1 to 5 unique names.

const fileWith = (engine: unknown) => ({
  providers: { main: { type: 'openai', base_url: 'http://127.0.0.1:9/v1' }, spare: { type: 'openai', base_url: 'http://127.0.0.1:9/v1' } },
  packages: [
    {
      slug: 'lists',
      name: 'Lists',
      quota_units: 10,
      limits: { requests_per_minute: 10, concurrency: 1 },
      operations: { 'text.generate': { engine, units: 1 } },
    },
  ],
});

function refusal(engine: unknown): { path: string; message: string }[] {
  try {
    parsePackagesFile(fileWith(engine));
  } catch (error) {
    if (isApiError(error)) return error.details?.issues as { path: string; message: string }[];
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('engine lists in the packages file', () => {
  it('accepts one name or an ordered list, and keeps the order', () => {
    expect(parsePackagesFile(fileWith('main:gpt-4.1-mini')).packages[0]!.operations['text.generate']!.engine).toBe('main:gpt-4.1-mini');
    const list = ['main:gpt-4.1-mini', 'spare:llama-3', 'local'];
    expect(parsePackagesFile(fileWith(list)).packages[0]!.operations['text.generate']!.engine).toEqual(list);
  });

  it('refuses an empty list, a repeated engine, more than 5 and a bad name, naming the field', () => {
    const path = 'packages.0.operations.text.generate.engine';
    expect(refusal([])[0]).toMatchObject({ path, message: `${path}: an engine list names at least one engine` });
    expect(refusal(['main:a', 'main:a'])[0]).toMatchObject({ path, message: `${path}: an engine list names each engine once` });
    expect(refusal(['main:a', 'main:b', 'main:c', 'main:d', 'main:e', 'main:f'])[0]!.message).toMatch(/list of 1 to 5 unique engine names/);
    expect(refusal(['main:a', 'no model'])[0]).toMatchObject({ path: `${path}.1` });
    expect(refusal(7)[0]!.path).toBe(path);
  });

  it('engineNamesOf reads both forms', () => {
    expect(engineNamesOf('local')).toEqual(['local']);
    expect(engineNamesOf(['a:b', 'local'])).toEqual(['a:b', 'local']);
  });
});
