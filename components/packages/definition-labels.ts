import { LIST_FIELDS, NUMBER_FIELDS } from './version-fields';

// One label per field of a package definition: the form, its error messages and the version
// diff all name fields the same way.

const TOP: Record<string, string> = {
  slug: 'Slug',
  name: 'Name',
  quota_units: 'Quota (units)',
  'limits.requests_per_minute': 'Requests per minute',
  'limits.concurrency': 'Concurrent requests',
  'limits.max_upload_bytes': 'Largest upload',
  'limits.max_provider_cost_per_day': 'Provider cost budget per key per day',
  unit_price: 'Unit price',
  sale: 'Sale',
  'sale.price': 'Price of a key',
  'sale.currency': 'Sale currency',
  'sale.top_ups': 'Top-up packs',
  'limits.max_stored_bytes': 'Storage per key',
  operations: 'Operations',
  'openai_compatible.require_idempotency_key': 'Idempotency-Key required (/openai/v1)',
};

const SETTINGS: Record<string, string> = {
  engine: 'Engine',
  units: 'Units per call',
  input_uploads: 'Accepts uploaded input',
};

/** "Requests per minute", "Output formats (text.generate)" for a dotted definition path. */
export function definitionLabel(path: string): string {
  if (TOP[path]) return TOP[path];
  if (path.startsWith('sale.top_ups.')) return TOP['sale.top_ups']!;
  const match = /^operations\.([a-z]+\.[a-z]+)(?:\.([a-z_]+))?/.exec(path);
  if (!match) return path;
  const [, operation, key] = match;
  if (!key) return operation!;
  const field = [
    ...(LIST_FIELDS[operation as keyof typeof LIST_FIELDS] ?? []),
    ...(NUMBER_FIELDS[operation as keyof typeof NUMBER_FIELDS] ?? []),
  ].find((candidate) => candidate.key === key);
  return `${field?.label ?? SETTINGS[key] ?? key} (${operation})`;
}
