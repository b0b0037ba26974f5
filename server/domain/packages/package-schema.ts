import { z } from 'zod';
import {
  IMAGE_OUTPUT_FORMATS,
  LANGUAGE_PATTERN,
  MAX_UPLOAD_BYTES,
  SPEECH_OUTPUT_FORMATS,
  TEXT_OUTPUT_FORMATS,
  TIMESTAMP_MODES,
} from '../../contract/values';

// The package file format of CONTRACT.md §7, used by the CLI, the dashboard form and the
// hot path alike. A list setting, when given, is the set of allowed values and its first
// entry is the default; when omitted, every value the interface allows is accepted.

export const ENGINE_PATTERN = /^(local|[a-z0-9][a-z0-9_-]{0,62}:[A-Za-z0-9._/:-]{1,120})$/;

const engine = z
  .string()
  .regex(ENGINE_PATTERN, 'engine must be "local" or "PROVIDER:MODEL" (for example main:gpt-4.1-mini)');
const units = z.number().int().min(0).max(1_000_000);
const uniqueList = <T extends z.ZodType<string>>(item: T) =>
  z
    .array(item)
    .min(1)
    .max(100)
    .refine((list) => new Set(list).size === list.length, 'entries must be unique');

const base = { engine, units };

export const operationSettingsSchemas = {
  'text.generate': z.strictObject({ ...base, output_formats: uniqueList(z.enum(TEXT_OUTPUT_FORMATS)).optional() }),
  'code.generate': z.strictObject({ ...base }),
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
    languages: uniqueList(z.string().regex(LANGUAGE_PATTERN, 'language must look like en or en-US')).optional(),
    output_formats: uniqueList(z.enum(SPEECH_OUTPUT_FORMATS)).optional(),
    max_duration_seconds: z.number().int().min(1).max(3600).optional(),
  }),
  'audio.transcribe': z.strictObject({
    ...base,
    languages: uniqueList(z.string().regex(LANGUAGE_PATTERN, 'language must look like en or en-US')).optional(),
    timestamps: uniqueList(z.enum(TIMESTAMP_MODES)).optional(),
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
  .refine((ops) => Object.values(ops).some(Boolean), 'a package must sell at least one operation');

export type PackageOperations = z.infer<typeof operationsSchema>;

export const packageDefinitionSchema = z.strictObject({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'slug must be 1 to 63 characters: lowercase letters, digits and hyphens, starting with a letter or digit'),
  name: z.string().min(1).max(120),
  quota_units: z.number().int().min(0).max(2_000_000_000),
  limits: z.strictObject({
    requests_per_minute: z.number().int().min(1).max(1_000_000),
    concurrency: z.number().int().min(1).max(10_000),
    max_upload_bytes: z.number().int().min(1).max(MAX_UPLOAD_BYTES).default(MAX_UPLOAD_BYTES),
  }),
  operations: operationsSchema,
});

export type PackageDefinition = z.infer<typeof packageDefinitionSchema>;

export const providerSchema = z.strictObject({
  type: z.literal('openai'),
  // The engine's server: http(s) only, and no credentials in it (the secret is named by api_key_env).
  base_url: z
    .url({ protocol: /^https?$/, error: 'base_url must be an http:// or https:// URL' })
    .refine((url) => !/^[a-z]+:\/\/[^/?#]*@/i.test(url), 'base_url must not hold credentials: name the secret in api_key_env'),
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'api_key_env names an environment variable, e.g. MAIN_API_KEY')
    .optional(),
});

export const packagesFileSchema = z
  .strictObject({
    providers: z
      .record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/), providerSchema, {
        error: (issue) => (issue.code === 'invalid_key' ? 'provider names are 1 to 63 characters: lowercase letters, digits, _ and -, starting with a letter or digit' : undefined),
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
