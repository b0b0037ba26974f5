import { describe, expect, it } from 'vitest';
import { definitionLabel } from '@/components/packages/definition-labels';
import { fieldName, formToDefinition } from '@/components/packages/version-fields';
import { packageDefinitionSchema } from '@/server/contract/package-schema';
import { outputCapNotices } from '@/server/contract/output-cap-notices';
import { packageForm } from './support/package-form';

// The package form carries the cost caps: max_output_tokens (text, code), max_input_seconds
// (transcribe); an empty field is no cap, which the packages-file schema accepts.

const form = (values: Record<string, string>) =>
  packageForm({ slug: 'caps', name: 'Caps', ...values }, ['text.generate', 'code.generate', 'audio.transcribe']);

describe('cost caps in the package form', () => {
  it('reads the caps into the definition the packages-file schema accepts', () => {
    const definition = formToDefinition(
      form({
        [fieldName('text.generate', 'max_output_tokens')]: '512',
        [fieldName('code.generate', 'max_output_tokens')]: '1024',
        [fieldName('audio.transcribe', 'max_input_seconds')]: '600',
      }),
    );
    const parsed = packageDefinitionSchema.parse(definition);
    expect(parsed.operations['text.generate']?.max_output_tokens).toBe(512);
    expect(parsed.operations['code.generate']?.max_output_tokens).toBe(1024);
    expect(parsed.operations['audio.transcribe']?.max_input_seconds).toBe(600);
    expect(outputCapNotices(parsed)).toEqual([]);
    expect(definitionLabel('operations.audio.transcribe.max_input_seconds')).toBe('Longest input (seconds) (audio.transcribe)');
  });

  it('an empty cap is no cap: accepted, with a notice for each uncapped text or code operation a provider serves', () => {
    const provider = {
      [fieldName('text.generate', 'engine')]: 'main:gpt-4.1-mini',
      [fieldName('code.generate', 'engine')]: 'main:gpt-4.1-mini',
    };
    const parsed = packageDefinitionSchema.parse(
      formToDefinition(form({ ...provider, [fieldName('text.generate', 'max_output_tokens')]: ' ' })),
    );
    expect(parsed.operations['text.generate']).not.toHaveProperty('max_output_tokens');
    expect(outputCapNotices(parsed)).toHaveLength(2);
    expect(outputCapNotices(parsed)[0]).toMatch(/^package caps: text\.generate has no output cap/);
    // The local engine calls no provider: nothing to cap.
    expect(outputCapNotices(packageDefinitionSchema.parse(formToDefinition(form({}))))).toEqual([]);
  });

  it('refuses a cap that is no whole number of at least 1', () => {
    const result = packageDefinitionSchema.safeParse(formToDefinition(form({ [fieldName('code.generate', 'max_output_tokens')]: '0' })));
    expect(result.success).toBe(false);
  });
});
