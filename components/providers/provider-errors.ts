import { PROVIDER_NAME, PROVIDER_NAME_RULE, providerSchema } from '@/server/contract/package-schema';
import { fieldErrors, issuePath } from '../forms/plain-issues';
import type { FieldIssue } from '../trpc/client';

// The provider forms' errors in the operator's words: each names the field by its label on the
// form and says what it allows, once. The entry is judged by the packages file's own provider
// schema (as the server judges it), through the dashboard's one phrasing of schema issues.

/** The form's label of each field (a type's extras, resource_name and the like, are labelled by their names). */
export const PROVIDER_LABELS: Record<string, string> = {
  name: 'Name',
  type: 'Type',
  base_url: 'Base URL',
  api_key_env: 'Key environment variable',
  prices: 'Prices',
  model: 'Model',
};

export const PRICES_EXAMPLE = '{"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}';

/** What a field allows, where the schema's own sentence speaks of its internal name (`api_key_env names ...`). */
const RULES: Record<string, string> = {
  name: PROVIDER_NAME_RULE.replace(/^provider names are /, 'Name must be '),
  api_key_env: 'Key environment variable must name an environment variable: capital letters, digits and _, e.g. MAIN_API_KEY',
  prices: `Prices must be a JSON object of model ids and their prices, such as ${PRICES_EXAMPLE}`,
  resource_name: 'resource_name must be the Azure resource name: lowercase letters, digits and -, e.g. my-openai',
  api_version: 'api_version must look like v1 or 2025-04-01-preview',
  region: 'region must be an AWS region, e.g. us-east-1',
};

/** The form field an issue path is about (`entry.base_url` → base_url, `prices.gpt-4o.per_image` → prices). */
export const providerField = (path: string) => path.replace(/^entry\./, '').split('.')[0] || 'form';

/** A field's label; a price's names its model and price (`Prices (gpt-4o-mini per_image)`). */
function labelOf(path: string): string {
  const [field = '', ...rest] = path.split('.');
  const label = PROVIDER_LABELS[field] ?? field;
  return field === 'prices' && rest.length > 0 ? `${label} (${rest.join(' ')})` : label;
}

/** Internal names inside a sentence, as the form labels them. */
const inFormWords = (text: string) =>
  text.replace(/\bapi_key_env\b/g, 'the Key environment variable').replace(/\bbase_url\b/g, 'the Base URL');

/** A sentence about the field at `path`, led by its label ("base_url must be ..." → "Base URL must be ..."). */
function labelled(path: string, sentence: string): string {
  const label = labelOf(path);
  const field = path.split('.')[0] ?? path;
  return sentence.startsWith(`${field} must `)
    ? inFormWords(`${label}${sentence.slice(field.length)}`)
    : `${label}: ${inFormWords(sentence)}`;
}

/** The field's own rule for a value of the wrong form or kind, where the schema's sentence would name it internally. */
const ruleFor = (path: string, code: string | undefined) =>
  path === providerField(path) && ['invalid_format', 'invalid_type'].includes(code ?? '') ? RULES[path] : undefined;

/** The entry's errors by form field, judged here before it is sent (empty: the schema takes it). */
export function providerEntryErrors(entry: Record<string, unknown>): Record<string, string> {
  const parsed = providerSchema.safeParse(entry);
  if (parsed.success) return {};
  const errors: Record<string, string> = {};
  const plain = fieldErrors(parsed.error, entry, labelOf);
  for (const issue of parsed.error.issues) {
    const path = issuePath(issue);
    const field = providerField(path);
    // A refinement's own sentence ("an azure provider needs resource_name or base_url") is kept, labelled.
    errors[field] ??=
      ruleFor(path, issue.code) ??
      (issue.code === 'custom' ? labelled(path, issue.message) : inFormWords(plain[path] ?? `${labelOf(path)} is not valid`));
  }
  return errors;
}

/** Whether a new provider's name is one the server takes; its sentence when not. */
export const providerNameError = (name: string): string | undefined =>
  name === '' ? 'Name is required' : PROVIDER_NAME.test(name) ? undefined : RULES.name;

/** A server's issue (a name taken, a key variable refused), labelled as the form's fields are. */
export function providerIssueText(issue: Pick<FieldIssue, 'path' | 'message'> & { code?: string }): string {
  const field = providerField(issue.path);
  const own = ruleFor(issue.path.replace(/^entry\./, ''), issue.code);
  if (own) return own;
  const body = issue.message.replace(/^[\w.|-]+: /, '');
  return body === 'required.' ? `${labelOf(field)} is required` : labelled(field, body);
}

/** The server's issues by form field. */
export function providerIssueErrors(issues: readonly FieldIssue[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of issues) errors[providerField(issue.path)] ??= providerIssueText(issue);
  return errors;
}
