import { fieldName } from '@/components/packages/version-fields';

/**
 * The package form's fields as the browser sends them: a package selling `operations` on the
 * `local` engine at 1 unit a call (an operation's engine may be given in `values`), and `values`
 * over the defaults.
 */
export function packageForm(values: Record<string, string>, operations: readonly string[] = ['text.generate']): FormData {
  const data = new FormData();
  for (const [key, value] of Object.entries({
    slug: 'form',
    name: 'Form',
    quota_units: '10',
    requests_per_minute: '5',
    concurrency: '1',
    ...values,
  })) {
    data.set(key, value);
  }
  for (const operation of operations) {
    data.set(fieldName(operation, 'enabled'), 'on');
    data.set(fieldName(operation, 'engine'), values[fieldName(operation, 'engine')] ?? 'local');
    data.set(fieldName(operation, 'units'), '1');
  }
  return data;
}
