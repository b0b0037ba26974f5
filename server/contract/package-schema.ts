import { z } from 'zod';
import {
  OPERATIONS,
  IMAGE_OUTPUT_FORMATS,
  LANGUAGE_PATTERN,
  MAX_UPLOAD_BYTES,
  SPEECH_OUTPUT_FORMATS,
  TEXT_OUTPUT_FORMATS,
  TIMESTAMP_MODES,
} from './values';
import { PROVIDER_TYPE_INFO, PROVIDER_TYPES, type ProviderType } from './provider-types';
import { saleSchema } from './sale-schema';
import { displayName } from './fields';

// The package file format of CONTRACT.md §7, used by the CLI, the dashboard form and the
// hot path alike. A list setting, when given, is the set of allowed values and its first
// entry is the default; when omitted, every value the interface allows is accepted.

export const ENGINE_PATTERN = /^(local|[a-z0-9][a-z0-9_-]{0,62}:[A-Za-z0-9._/:-]{1,120})$/;

/** A provider's name; never `local`, the built-in engine's: the engine picker could not tell the two apart. */
export const PROVIDER_NAME = /^(?!local$)[a-z0-9][a-z0-9_-]{0,62}$/;
export const PROVIDER_NAME_RULE =
  'provider names are 1 to 63 characters: lowercase letters, digits, _ and -, starting with a letter or digit, and not "local" (the built-in engine)';

const engineName = z.string().regex(ENGINE_PATTERN, 'engine must be "local" or PROVIDER:MODEL: a provider\'s name, a colon and a model id');
/** The most engines one operation may name: the first answers, the others are its fallbacks in order. */
export const MAX_ENGINE_FALLBACKS = 5;
const engine = z.union(
  [
    engineName,
    z
      .array(engineName)
      .min(1, 'an engine list names at least one engine')
      .max(MAX_ENGINE_FALLBACKS, `an engine list names at most ${MAX_ENGINE_FALLBACKS} engines`)
      .refine((list) => new Set(list).size === list.length, 'an engine list names each engine once'),
  ],
  { error: `engine must be one engine name or a list of 1 to ${MAX_ENGINE_FALLBACKS} unique engine names` },
);
const units = z.number().int().min(0).max(1_000_000);
const uniqueList = <T extends z.ZodType<string>>(item: T) =>
  z
    .array(item)
    .min(1)
    .max(100)
    .refine((list) => new Set(list).size === list.length, 'entries must be unique');
/** Language tags, matched ignoring case (`en-US` is `en-us`): unique so, as requests are matched. */
const languageList = uniqueList(z.string().regex(LANGUAGE_PATTERN, 'language must look like en or en-US')).refine(
  (list) => new Set(list.map((tag) => tag.toLowerCase())).size === list.length,
  'entries must be unique ignoring case (languages are matched so: en and EN are one)',
);

/** A model id of the OpenAI-compatible surface: letters, digits and `. _ : / -`, as OpenAI's own ids are. */
export const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
/**
 * More model ids the OpenAI-compatible surface (/openai/v1) answers with this operation, beside its
 * own name (`text.generate`), so an application keeps its model string (`gpt-4o-mini`).
 */
const modelAliases = uniqueList(
  z
    .string()
    .regex(MODEL_ID_PATTERN, 'a model alias is 1 to 128 characters: letters, digits and . _ : / -, starting with a letter or digit'),
)
  .max(20)
  .optional();

const base = { engine, units, model_aliases: modelAliases };
/** An amount of CURRENCY. */
const MONEY_RULE = "must be an amount from 0 to 1,000,000,000 (in the deployment's CURRENCY)";
const money = z.number(MONEY_RULE).min(0, MONEY_RULE).max(1_000_000_000, MONEY_RULE);
/** An amount a version stores in numeric(20,10): a finer one would be stored rounded, and a new version made at each apply. */
const storedMoney = money.refine((amount) => Number(amount.toFixed(10)) === amount, 'must have at most 10 decimal places (what is stored)');
/** The most output tokens one call may ask of the engine; unset, the provider's own default applies. */
const maxOutputTokens = z.number().int().min(1).max(1_000_000).optional();

export const operationSettingsSchemas = {
  'text.generate': z.strictObject({
    ...base,
    output_formats: uniqueList(z.enum(TEXT_OUTPUT_FORMATS)).optional(),
    max_output_tokens: maxOutputTokens,
  }),
  'code.generate': z.strictObject({ ...base, max_output_tokens: maxOutputTokens }),
  'images.generate': z.strictObject({
    ...base,
    output_formats: uniqueList(z.enum(IMAGE_OUTPUT_FORMATS)).optional(),
    styles: uniqueList(z.string().min(1).max(120)).optional(),
    input_uploads: z.boolean().default(false),
  }),
  'videos.generate': z.strictObject({ ...base, input_uploads: z.boolean().default(false) }),
  'audio.speech': z.strictObject({
    ...base,
    voices: uniqueList(z.string().min(1).max(80)).optional(),
    languages: languageList.optional(),
    output_formats: uniqueList(z.enum(SPEECH_OUTPUT_FORMATS)).optional(),
    max_duration_seconds: z.number().int().min(1).max(3600).optional(),
  }),
  'audio.transcribe': z.strictObject({
    ...base,
    languages: languageList.optional(),
    timestamps: uniqueList(z.enum(TIMESTAMP_MODES)).optional(),
    /** The longest input upload (seconds of media) a call may send; longer is 422 before anything is charged. */
    max_input_seconds: z.number().int().min(1).max(86_400).optional(),
  }),
} as const;

export const operationsSchema = z
  .strictObject({
    'text.generate': operationSettingsSchemas['text.generate'].optional(),
    'code.generate': operationSettingsSchemas['code.generate'].optional(),
    'images.generate': operationSettingsSchemas['images.generate'].optional(),
    'videos.generate': operationSettingsSchemas['videos.generate'].optional(),
    'audio.speech': operationSettingsSchemas['audio.speech'].optional(),
    'audio.transcribe': operationSettingsSchemas['audio.transcribe'].optional(),
  })
  .refine((ops) => Object.values(ops).some(Boolean), 'a package must sell at least one operation')
  .superRefine((ops, ctx) => {
    // Each model id names one operation: an alias is no operation's name and no other alias.
    const named = new Set<string>(OPERATIONS);
    for (const [operation, settings] of Object.entries(ops)) {
      (settings?.model_aliases ?? []).forEach((alias, index) => {
        if (named.has(alias)) {
          ctx.addIssue({ code: 'custom', path: [operation, 'model_aliases', index], message: `model alias "${alias}" is taken` });
        }
        named.add(alias);
      });
    }
  });

export type PackageOperations = z.infer<typeof operationsSchema>;

export const packageDefinitionSchema = z.strictObject({
  slug: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9-]{0,62}$/,
      'slug must be 1 to 63 characters: lowercase letters, digits and hyphens, starting with a letter or digit',
    ),
  name: displayName(1, 120),
  quota_units: z.number().int().min(0).max(2_000_000_000),
  limits: z.strictObject({
    requests_per_minute: z.number().int().min(1).max(1_000_000),
    concurrency: z.number().int().min(1).max(10_000),
    max_upload_bytes: z.number().int().min(1).max(MAX_UPLOAD_BYTES).default(MAX_UPLOAD_BYTES),
    /** Each key's most provider cost (CURRENCY) per UTC day; past it, 429 with reason "budget". */
    max_provider_cost_per_day: storedMoney.optional().meta({ omitted: 'no cap' }),
    /** What one key may hold in storage at once (uploads and outputs); omitted: 10 x max_upload_bytes. */
    max_stored_bytes: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().meta({ omitted: '10 x `max_upload_bytes`' }),
  }),
  /** What one unit sells for (CURRENCY): revenue = units charged × unit_price. */
  unit_price: storedMoney.optional(),
  /** For sale through Stripe Checkout: a key's price and optional top-up packs; omitted, not sold. */
  sale: saleSchema.optional(),
  /** The OpenAI-compatible surface (/openai/v1): whether it requires an Idempotency-Key as /v1 does. */
  openai_compatible: z.strictObject({ require_idempotency_key: z.boolean().default(false) }).optional(),
  operations: operationsSchema,
});

export type PackageDefinition = z.infer<typeof packageDefinitionSchema>;

// The engine's server: http(s) only, and no credentials in it (the secret is named by api_key_env).
// Nor a query or fragment: the engine appends its paths to base_url, so a query there is never
// what it sends, only a way to put a token (Azure's api-key, Google's key) where every operator sees it.
const baseUrl = z
  .url({ protocol: /^https?$/, error: 'base_url must be an http:// or https:// URL' })
  .max(2_000, 'base_url must be at most 2000 characters')
  .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'base_url must not hold credentials: name the secret in api_key_env')
  .refine(
    (url) => !/[?#]/.test(url),
    'base_url must not have a query or fragment: the engine adds its own paths after it, and a secret is named in api_key_env',
  );

/** An operator's prices of one model (CURRENCY), overriding the genai-prices table. */
export const modelPricesSchema = z
  .strictObject({
    input_per_mtok: money.optional(),
    output_per_mtok: money.optional(),
    cached_input_per_mtok: money.optional(),
    per_character: money.optional(),
    per_second: money.optional(),
    per_image: money.optional(),
  })
  .refine((prices) => Object.keys(prices).length > 0, "a model's prices name at least one price");
/** The most models one provider's prices name: more than any provider sells, few enough to show on a page. */
const MAX_PRICED_MODELS = 1_000;
export const providerPricesSchema = z
  .record(z.string().min(1).max(120), modelPricesSchema)
  .refine((prices) => Object.keys(prices).length <= MAX_PRICED_MODELS, `prices name at most ${MAX_PRICED_MODELS} models`);

const providerCommon = {
  /** Per model id: its prices, overriding the genai-prices table. */
  prices: providerPricesSchema.optional(),
  api_key_env: z
    .string()
    .max(128, 'api_key_env must be at most 128 characters')
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'api_key_env names an environment variable, e.g. MAIN_API_KEY')
    .optional(),
};

const EXTRA_FIELDS: Record<string, z.ZodType> = {
  resource_name: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, 'resource_name is the Azure resource name, e.g. my-openai'),
  api_version: z.string().regex(/^[A-Za-z0-9._-]{1,40}$/, 'api_version looks like v1 or 2025-04-01-preview'),
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'region is an AWS region, e.g. us-east-1'),
};

/** One entry per provider type: `base_url` is exactly the AI SDK provider's `baseURL`. */
function providerEntrySchema(type: ProviderType) {
  const info = PROVIDER_TYPE_INFO[type];
  const extras = Object.fromEntries(
    Object.entries(info.extras).map(([name, extra]) => [name, extra.required ? EXTRA_FIELDS[name]! : EXTRA_FIELDS[name]!.optional()]),
  );
  const entry = z.strictObject({
    type: z.literal(type),
    base_url: info.baseUrlRequired ? baseUrl : baseUrl.optional(),
    ...providerCommon,
    ...extras,
  });
  if (type !== 'azure') return entry;
  return entry.refine((value) => value.base_url !== undefined || (value as { resource_name?: string }).resource_name !== undefined, {
    path: ['resource_name'],
    message: 'an azure provider needs resource_name or base_url',
  });
}

const providerEntries = PROVIDER_TYPES.map(providerEntrySchema);

export const providerSchema = z.discriminatedUnion(
  'type',
  providerEntries as unknown as [(typeof providerEntries)[0], ...typeof providerEntries],
  {
    error: (issue) => (issue.code === 'invalid_union' ? `type must be one of ${PROVIDER_TYPES.join(', ')}` : undefined),
  },
);

export type ProviderEntry = z.infer<typeof providerSchema> & {
  base_url?: string;
  resource_name?: string;
  api_version?: string;
  region?: string;
};

/** The type extras of an entry (azure resource_name, bedrock region, ...), as stored with the provider. */
export function providerExtrasOf(entry: ProviderEntry): Record<string, string> {
  const { type: _type, base_url: _baseUrl, api_key_env: _keyEnv, ...extras } = entry;
  return Object.fromEntries(Object.entries(extras).filter(([, value]) => typeof value === 'string')) as Record<string, string>;
}

export const packagesFileSchema = z
  .strictObject({
    providers: z
      .record(z.string().regex(PROVIDER_NAME), providerSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? PROVIDER_NAME_RULE : undefined),
      })
      .default({}),
    packages: z.array(packageDefinitionSchema).min(1),
  })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    file.packages.forEach((pkg, index) => {
      if (seen.has(pkg.slug)) {
        ctx.addIssue({ code: 'custom', path: ['packages', index, 'slug'], message: `duplicate slug "${pkg.slug}"` });
      }
      seen.add(pkg.slug);
    });
  });

export type PackagesFile = z.infer<typeof packagesFileSchema>;
