import { describe, expect, it } from 'vitest';
import { fieldName, formToDefinition } from '@/components/packages/version-fields';

// The package form's Engine field: one engine, or fallbacks in order (one picker input each, or typed comma-separated).

function formWithEngine(engine: string): FormData {
  const form = new FormData();
  form.set(fieldName('text.generate', 'enabled'), 'on');
  form.set(fieldName('text.generate', 'engine'), engine);
  form.set(fieldName('text.generate', 'units'), '1');
  return form;
}

const engineOf = (form: FormData) => (formToDefinition(form).operations as Record<string, { engine: unknown }>)['text.generate']!.engine;

describe('the Engine field of the package form', () => {
  it('reads one engine as a name and a comma-separated list as the ordered fallbacks', () => {
    expect(engineOf(formWithEngine(' main:gpt-4.1-mini '))).toBe('main:gpt-4.1-mini');
    expect(engineOf(formWithEngine('main:gpt-4.1-mini, spare:llama ,local'))).toEqual(['main:gpt-4.1-mini', 'spare:llama', 'local']);
  });

  it('reads the engine picker inputs, one per engine, as the ordered fallbacks', () => {
    const form = formWithEngine('main:a');
    form.append(fieldName('text.generate', 'engine'), 'local');
    expect(engineOf(form)).toEqual(['main:a', 'local']);
  });
});
