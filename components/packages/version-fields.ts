import {
  IMAGE_OUTPUT_FORMATS,
  OPERATIONS,
  SPEECH_OUTPUT_FORMATS,
  TEXT_OUTPUT_FORMATS,
  TIMESTAMP_MODES,
  type Operation,
} from '@/server/contract/values';

// How the package form maps to a package definition (the packages-file format). Lists are
// typed as comma-separated values; their first entry is the default, as in the file.

export interface ListField {
  key: string;
  label: string;
  hint: string;
  /** The interface's allowed values, offered as choices; absent for open lists (styles, voices). */
  allowed?: readonly string[];
  /** A list without a default (its hint says all there is to say). */
  unordered?: true;
}

/** Other model ids /openai/v1 accepts for the operation (docs/openai-compatible.md#models). */
const MODEL_ALIASES: ListField = {
  key: 'model_aliases',
  label: 'Model aliases (/openai/v1)',
  hint: 'model ids an OpenAI client may send for this operation, for example gpt-4o-mini; its own name always works',
  unordered: true,
};

const OPERATION_LISTS: Record<Operation, ListField[]> = {
  'text.generate': [{ key: 'output_formats', label: 'Output formats', hint: 'text, markdown, json', allowed: TEXT_OUTPUT_FORMATS }],
  'code.generate': [],
  'images.generate': [
    { key: 'output_formats', label: 'Output formats', hint: 'png, jpeg, webp', allowed: IMAGE_OUTPUT_FORMATS },
    { key: 'styles', label: 'Styles', hint: 'for example photo, sketch' },
  ],
  'videos.generate': [],
  'audio.speech': [
    { key: 'voices', label: 'Voices', hint: 'for example alloy' },
    { key: 'languages', label: 'Languages', hint: 'for example en, en-US' },
    { key: 'output_formats', label: 'Output formats', hint: 'mp3, wav', allowed: SPEECH_OUTPUT_FORMATS },
  ],
  'audio.transcribe': [
    { key: 'languages', label: 'Languages', hint: 'for example en' },
    { key: 'timestamps', label: 'Timestamps', hint: 'none, segment', allowed: TIMESTAMP_MODES },
  ],
};

export const LIST_FIELDS = Object.fromEntries(
  Object.entries(OPERATION_LISTS).map(([operation, fields]) => [operation, [...fields, MODEL_ALIASES]]),
) as Record<Operation, ListField[]>;

/** A list field's hint: an ordered list's first entry is its default, and an empty one allows all. */
export function listHint(field: ListField): string {
  if (field.unordered) return field.hint;
  return field.allowed ? 'the first is the default; none allows all' : `${field.hint}; the first is the default; none allows all`;
}

export interface NumberField {
  key: string;
  label: string;
  hint: string;
}

const OUTPUT_CAP: NumberField = {
  key: 'max_output_tokens',
  label: 'Output cap (tokens)',
  hint: "the most output one call may ask of the provider; empty: the provider's own default",
};

/** Whole-number settings: empty means not set. */
export const NUMBER_FIELDS: Record<Operation, NumberField[]> = {
  'text.generate': [OUTPUT_CAP],
  'code.generate': [OUTPUT_CAP],
  'images.generate': [],
  'videos.generate': [],
  'audio.speech': [{ key: 'max_duration_seconds', label: 'Longest audio (seconds)', hint: 'empty: no limit' }],
  'audio.transcribe': [
    { key: 'max_input_seconds', label: 'Longest input (seconds)', hint: 'a longer upload is refused before any charge; empty: no limit' },
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

/** A tag list (forms/tag-input.tsx: one input per tag), each tag as it is; none: not set. */
function tags(values: FormDataEntryValue[]): string[] | undefined {
  const items = values.map(String).filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

/**
 * The Engine field: the engine picker sends one input per engine, in order; a typed
 * comma-separated list (model ids hold no comma) is read the same way. One name is the engine,
 * several the ordered fallbacks.
 */
function engineSetting(values: FormDataEntryValue[]): string | string[] {
  const names = values.flatMap((value) => String(value).split(',')).map((name) => name.trim());
  return names.length === 1 ? names[0]! : names;
}

/**
 * Units of the upload-size picker: binary, as CONTRACT.md writes sizes (1 MiB) and the dashboard
 * shows them; bytes for a size no short number of MiB makes (one from a packages file).
 */
export const SIZE_UNITS = { MiB: 1024 ** 2, GiB: 1024 ** 3, bytes: 1 } as const;

/** A size typed as a number of MiB, GiB or bytes, in bytes; raw text when it is not a number. */
function sizeInBytes(value: FormDataEntryValue | null, unit: FormDataEntryValue | null): unknown {
  const amount = numberOrRaw(value);
  if (typeof amount !== 'number') return amount;
  return Math.round(amount * (SIZE_UNITS[String(unit) as keyof typeof SIZE_UNITS] ?? SIZE_UNITS.MiB));
}

/**
 * The size shown in the form, in a unit it reads back from exactly (a version saved with its sizes
 * untouched keeps them to the byte): GiB when a whole number of them, MiB to three decimals when
 * that is exact, else bytes.
 */
export function sizeForForm(bytes: number | undefined): { amount: string; unit: keyof typeof SIZE_UNITS } {
  if (bytes === undefined) return { amount: '', unit: 'MiB' };
  if (bytes % SIZE_UNITS.GiB === 0) return { amount: String(bytes / SIZE_UNITS.GiB), unit: 'GiB' };
  const mebibytes = Math.round((bytes / SIZE_UNITS.MiB) * 1000) / 1000;
  if (Math.round(mebibytes * SIZE_UNITS.MiB) === bytes) return { amount: String(mebibytes), unit: 'MiB' };
  return { amount: String(bytes), unit: 'bytes' };
}

/**
 * The sale fields as a definition's `sale`: none without a price or packs (packs without a price
 * go to the schema, which asks for the price); a pack that is not units:price stays raw for the schema to name.
 */
function saleFromForm(form: FormData): Record<string, unknown> | undefined {
  const price = numberOrRaw(form.get('sale_price'));
  const packs = list(form.get('sale_top_ups')) ?? [];
  if (price === undefined && packs.length === 0) return undefined;
  return {
    ...(price === undefined ? {} : { price }),
    currency: String(form.get('sale_currency') ?? '')
      .trim()
      .toUpperCase(),
    top_ups: packs.map((pack) => {
      const [units, packPrice, ...rest] = pack.split(':').map((part) => numberOrRaw(part));
      return rest.length === 0 && units !== undefined && packPrice !== undefined ? { units, price: packPrice } : pack;
    }),
  };
}

/** The form's values as a definition; the packages-file schema then judges it. */
export function formToDefinition(form: FormData): Record<string, unknown> {
  const operations: Record<string, Record<string, unknown>> = {};
  for (const operation of OPERATIONS) {
    if (form.get(fieldName(operation, 'enabled')) !== 'on') continue;
    const settings: Record<string, unknown> = {
      engine: engineSetting(form.getAll(fieldName(operation, 'engine'))),
      units: numberOrRaw(form.get(fieldName(operation, 'units'))),
    };
    for (const field of LIST_FIELDS[operation]) {
      const values = tags(form.getAll(fieldName(operation, field.key)));
      if (values) settings[field.key] = values;
    }
    if (TAKES_UPLOADS.includes(operation)) settings.input_uploads = form.get(fieldName(operation, 'input_uploads')) === 'on';
    for (const field of NUMBER_FIELDS[operation]) {
      const value = numberOrRaw(form.get(fieldName(operation, field.key)));
      if (value !== undefined) settings[field.key] = value;
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
      max_upload_bytes: sizeInBytes(form.get('max_upload_bytes'), form.get('max_upload_unit')),
      max_provider_cost_per_day: numberOrRaw(form.get('max_provider_cost_per_day')),
      max_stored_bytes: sizeInBytes(form.get('max_stored_bytes'), form.get('max_stored_unit')),
    },
    unit_price: numberOrRaw(form.get('unit_price')),
    sale: saleFromForm(form),
    openai_compatible: form.get('openai_require_idempotency_key') === 'on' ? { require_idempotency_key: true } : undefined,
    operations,
  };
}

/** The form field an issue path points at, so the message shows next to it. */
export function issueField(path: string): string {
  if (path.startsWith('limits.')) return path.slice('limits.'.length);
  if (path.startsWith('sale.top_ups')) return 'sale_top_ups';
  if (path === 'sale.price' || path === 'sale.currency') return path.replace('.', '_');
  const match = /^operations\.([a-z]+\.[a-z]+)\.([a-z_]+)/.exec(path);
  if (match) return fieldName(match[1]!, match[2]!);
  if (path.startsWith('operations')) return 'operations';
  return path.split('.')[0] ?? path;
}
