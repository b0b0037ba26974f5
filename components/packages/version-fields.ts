import { OPERATIONS, type Operation } from '@/server/domain/operations';

// How the package form maps to a package definition (the packages-file format). Lists are
// typed as comma-separated values; their first entry is the default, as in the file.

export interface ListField {
  key: string;
  label: string;
  hint: string;
}

export const LIST_FIELDS: Record<Operation, ListField[]> = {
  'text.generate': [{ key: 'output_formats', label: 'Output formats', hint: 'text, markdown, json' }],
  'code.generate': [],
  'images.generate': [
    { key: 'output_formats', label: 'Output formats', hint: 'png, jpeg, webp' },
    { key: 'styles', label: 'Styles', hint: 'for example photo, sketch' },
  ],
  'videos.generate': [],
  'audio.speech': [
    { key: 'voices', label: 'Voices', hint: 'for example alloy' },
    { key: 'languages', label: 'Languages', hint: 'for example en, en-US' },
    { key: 'output_formats', label: 'Output formats', hint: 'mp3, wav' },
  ],
  'audio.transcribe': [
    { key: 'languages', label: 'Languages', hint: 'for example en' },
    { key: 'timestamps', label: 'Timestamps', hint: 'none, segment' },
  ],
};

export const TAKES_UPLOADS: readonly Operation[] = ['images.generate', 'videos.generate'];
export { OPERATIONS };

const fieldName = (operation: string, key: string) => `${operation}|${key}`;
export { fieldName };

function numberOrRaw(value: FormDataEntryValue | null): unknown {
  const text = String(value ?? '').trim();
  if (text === '') return undefined;
  const number = Number(text);
  return Number.isFinite(number) ? number : text;
}

function list(value: FormDataEntryValue | null): string[] | undefined {
  const items = String(value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}

/** The form's values as a definition; the packages-file schema then judges it. */
export function formToDefinition(form: FormData): Record<string, unknown> {
  const operations: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    if (form.get(fieldName(operation, 'enabled')) !== 'on') continue;
    const settings: Record<string, unknown> = {
      engine: String(form.get(fieldName(operation, 'engine')) ?? '').trim(),
      units: numberOrRaw(form.get(fieldName(operation, 'units'))),
    };
    for (const field of LIST_FIELDS[operation]) {
      const values = list(form.get(fieldName(operation, field.key)));
      if (values) settings[field.key] = values;
    }
    if (TAKES_UPLOADS.includes(operation)) settings.input_uploads = form.get(fieldName(operation, 'input_uploads')) === 'on';
    if (operation === 'audio.speech') {
      const seconds = numberOrRaw(form.get(fieldName(operation, 'max_duration_seconds')));
      if (seconds !== undefined) settings.max_duration_seconds = seconds;
    }
    operations[operation] = settings;
  }
  return {
    slug: String(form.get('slug') ?? '').trim(),
    name: String(form.get('name') ?? '').trim(),
    quota_units: numberOrRaw(form.get('quota_units')),
    limits: {
      requests_per_minute: numberOrRaw(form.get('requests_per_minute')),
      concurrency: numberOrRaw(form.get('concurrency')),
      max_upload_bytes: numberOrRaw(form.get('max_upload_bytes')),
    },
    operations,
  };
}

/** The form field an issue path points at, so the message shows next to it. */
export function issueField(path: string): string {
  if (path.startsWith('limits.')) return path.slice('limits.'.length);
  const match = /^operations\.([a-z]+\.[a-z]+)\.([a-z_]+)/.exec(path);
  if (match) return fieldName(match[1]!, match[2]!);
  if (path.startsWith('operations')) return 'operations';
  return path.split('.')[0] ?? path;
}

