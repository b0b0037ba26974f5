import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fieldErrors, schemaAt } from '@/components/forms/plain-issues';
import { packageDefinitionSchema } from '@/server/contract/package-schema';

const LABELS: Record<string, string> = {
  name: 'Name',
  'limits.requests_per_minute': 'Requests per minute',
  'operations.text.generate.output_formats.0': 'Text output formats',
  slug: 'Slug',
};
const label = (path: string) => LABELS[path] ?? path;

function errorsOf(input: unknown) {
  const parsed = packageDefinitionSchema.safeParse(input);
  if (parsed.success) throw new Error('expected a failure');
  return fieldErrors(parsed.error, input, label, packageDefinitionSchema);
}

const valid = {
  slug: 'starter',
  name: 'Starter',
  quota_units: 100,
  limits: { requests_per_minute: 60, concurrency: 2 },
  operations: { 'text.generate': { engine: 'local', units: 1 } },
};

describe('plain-language field errors from the packages-file schema', () => {
  it('names the field by its label and says what is allowed', () => {
    expect(errorsOf({ ...valid, name: '' })).toEqual({ name: 'Name is required' });
    expect(errorsOf({ ...valid, limits: { requests_per_minute: 0, concurrency: 2 } })).toEqual({
      'limits.requests_per_minute': 'Requests per minute must be a whole number from 1 to 1,000,000',
    });
    expect(errorsOf({ ...valid, limits: { requests_per_minute: 1.5, concurrency: 2 } })['limits.requests_per_minute']).toBe(
      'Requests per minute must be a whole number from 1 to 1,000,000',
    );
    expect(errorsOf({ ...valid, limits: { concurrency: 2 } })['limits.requests_per_minute']).toBe('Requests per minute is required');
  });

  it('lists the allowed values of a list setting', () => {
    const errors = errorsOf({ ...valid, operations: { 'text.generate': { engine: 'local', units: 1, output_formats: ['pdf'] } } });
    expect(errors['operations.text.generate.output_formats.0']).toMatch(/^Text output formats must be one of text, markdown/);
  });

  it('keeps a refinement sentence but starts it with the label', () => {
    expect(errorsOf({ ...valid, slug: 'Bad Slug' }).slug).toMatch(/^Slug must be 1 to 63 characters/);
  });

  it('finds sub-schemas through optional and default wrappers', () => {
    expect(schemaAt(packageDefinitionSchema, ['limits', 'max_upload_bytes'])).toBeInstanceOf(z.ZodNumber);
    expect(schemaAt(packageDefinitionSchema, ['operations', 'audio.speech', 'voices', 0])).toBeInstanceOf(z.ZodString);
  });
});
