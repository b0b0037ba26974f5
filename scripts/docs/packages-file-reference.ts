// Renders docs/packages-file.md from the packages file's zod schema
// (server/contract/package-schema.ts), through its JSON Schema: every field, its type, default and rule come from
// the schema, so the page cannot say what the schema does not. `npm run docs:generate` writes it;
// tests/unit/docs-reference.test.ts fails when the page and the schema differ.
import { z } from 'zod';
import { packagesFileSchema } from '../../server/contract/package-schema';

interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  /** What leaving out an optional field without a default means, where that is more than "not set" (`.meta({ omitted })`). */
  omitted?: string;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  propertyNames?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
}

const number = (n: number) => n.toLocaleString('en-US');
const code = (value: unknown) => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
const cell = (text: string) => text.replaceAll('|', '\\|');

function typeOf(node: JsonSchema): string {
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.const !== undefined) return code(node.const);
  if (node.type === 'array') return `list of ${typeOf(node.items ?? {})}`;
  if (node.type === 'object') return 'object';
  return node.type ?? 'any';
}

function ruleOf(node: JsonSchema): string[] {
  const rules: string[] = [];
  if (node.anyOf) return [node.anyOf.map((branch) => `${typeOf(branch)}: ${ruleOf(branch).join(', ')}`).join('; or ')];
  if (node.enum) rules.push(`one of ${node.enum.map(code).join(', ')}`);
  if (node.pattern) rules.push(`matches ${code(node.pattern)}`);
  if (node.format === 'uri') rules.push('a URL');
  if (node.minLength !== undefined || node.maxLength !== undefined) rules.push(`${node.minLength ?? 0} to ${node.maxLength ?? '∞'} characters`);
  if (node.exclusiveMinimum !== undefined) rules.push(`more than ${number(node.exclusiveMinimum)}, at most ${number(node.maximum ?? Infinity)}`);
  else if (node.minimum !== undefined || node.maximum !== undefined) rules.push(`${number(node.minimum ?? 0)} to ${number(node.maximum ?? Infinity)}`);
  if (node.type === 'array') {
    rules.push(`${node.minItems ?? 0} to ${node.maxItems ?? '∞'} entries`);
    if (node.items) rules.push(...ruleOf(node.items).map((rule) => `each ${rule}`));
  }
  return rules;
}

function row(path: string, node: JsonSchema, required: boolean): string {
  const presence =
    node.default !== undefined ? code(node.default) : required ? 'required' : node.omitted ? `optional (omitted: ${node.omitted})` : 'optional';
  return `| ${cell(code(path))} | ${cell(typeOf(node))} | ${cell(presence)} | ${cell(ruleOf(node).join('; ') || '—')} |`;
}

/** One row per leaf field under `prefix`; nested objects get a row of their own and then their fields. */
function rows(prefix: string, node: JsonSchema): string[] {
  const out: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const path = `${prefix}${name}`;
    out.push(row(path, child, (node.required ?? []).includes(name)));
    if (child.type === 'object' && child.properties) out.push(...rows(`${path}.`, child));
  }
  return out;
}

/**
 * The rules that hold across fields, which JSON Schema does not carry. Each comes with a file that
 * breaks it and the message the schema answers; the reference test parses each file with the
 * schema and expects that message, so a rule listed here is a rule the schema holds.
 */
export const CROSS_FIELD_RULES: { rule: string; breaking: (file: ExampleFile) => void; message: string }[] = [
  {
    rule: 'Package slugs are unique within the file.',
    breaking: (file) => file.packages.push({ ...file.packages[0]! }),
    message: 'duplicate slug',
  },
  {
    rule: 'A package sells at least one operation.',
    breaking: (file) => (file.packages[0]!.operations = {}),
    message: 'a package must sell at least one operation',
  },
  {
    rule: 'An `engine` is `local` or `PROVIDER:MODEL`, or a list of 1 to 5 of them, each named once: the first answers, the others are its fallbacks in order.',
    breaking: (file) => (file.packages[0]!.operations['text.generate']!.engine = ['local', 'local']),
    message: 'an engine list names each engine once',
  },
  {
    rule: 'The entries of a list setting (`output_formats`, `styles`, `voices`, `languages`, `timestamps`) are unique; its first entry is the default. An omitted list allows every value the interface allows, and a request that names none gets `text` (text and code), `png` (images), `mp3` (speech) or `segment` (timestamps); style, voice and language are then the engine\'s own.',
    breaking: (file) => (file.packages[0]!.operations['text.generate']!.output_formats = ['text', 'text']),
    message: 'entries must be unique',
  },
  {
    rule: '`base_url` is an `http://` or `https://` URL with no credentials in it (the secret is named by `api_key_env`, or stored by an operator).',
    breaking: (file) => (file.providers = { main: { type: 'openai', base_url: 'https://user:secret@example.com/v1' } }),
    message: 'base_url must not hold credentials',
  },
  {
    rule: '`base_url` has no query or fragment: the engine adds its own paths after it (a token in a query would be shown to every operator).',
    breaking: (file) => (file.providers = { main: { type: 'openai', base_url: 'https://example.com/v1?api-key=secret' } }),
    message: 'base_url must not have a query or fragment',
  },
  {
    rule: "A provider's `prices` name at most 1000 models.",
    breaking: (file) =>
      (file.providers = {
        main: { type: 'openai', prices: Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`m${i}`, { input_per_mtok: 1 }])) },
      }),
    message: 'prices name at most 1000 models',
  },
  {
    rule: "A package's `name` holds no control or bidirectional-formatting character: it is shown as what it is, in pages and terminals.",
    breaking: (file) => ((file.packages[0] as Record<string, unknown>).name = 'Starter\u202e'),
    message: 'must not contain control characters or bidirectional-override characters',
  },
  {
    rule: 'An `azure` provider needs `resource_name` or `base_url`.',
    breaking: (file) => (file.providers = { az: { type: 'azure' } }),
    message: 'an azure provider needs resource_name or base_url',
  },
  {
    rule: "A `sale`'s prices have at most the decimals Stripe charges its currency with: 2 for `USD` or `EUR`; 0 for `JPY`, `HUF` and `ISK` (Stripe counts the last two in hundredths, but charges or shows whole units); 2 for `KWD` and the other three-decimal currencies (Stripe charges only a last digit of 0).",
    breaking: (file) => ((file.packages[0] as Record<string, unknown>).sale = { price: 5000.5, currency: 'HUF' }),
    message: 'HUF prices have at most 0 decimals',
  },
  {
    rule: "A `sale`'s prices are at least one step of its currency (0.01 `USD`, 1 `JPY`): Stripe would be asked for nothing.",
    breaking: (file) => ((file.packages[0] as Record<string, unknown>).sale = { price: 0.000000001, currency: 'USD' }),
    message: 'a USD price is at least 0.01',
  },
  {
    rule: '`unit_price` and `limits.max_provider_cost_per_day` have at most 10 decimal places, as they are stored (a finer amount would be rounded).',
    breaking: (file) => ((file.packages[0] as Record<string, unknown>).unit_price = 5e-11),
    message: 'must have at most 10 decimal places (what is stored)',
  },
  {
    rule: "A `sale`'s currency is one money is charged in: not `XXX`, `XAU` or another metal, fund or testing code.",
    breaking: (file) => ((file.packages[0] as Record<string, unknown>).sale = { price: 9, currency: 'XXX' }),
    message: 'currency must be one money is charged in',
  },
  {
    rule: 'The top-up packs of a `sale` each sell a different number of units.',
    breaking: (file) =>
      ((file.packages[0] as Record<string, unknown>).sale = {
        price: 9,
        currency: 'USD',
        top_ups: [
          { units: 10, price: 1 },
          { units: 10, price: 2 },
        ],
      }),
    message: 'each top-up pack sells a different number of units',
  },
];

/** The smallest valid file, which each rule's example breaks. */
export interface ExampleFile {
  providers?: Record<string, Record<string, unknown>>;
  packages: { slug: string; operations: Record<string, Record<string, unknown> | undefined> & { 'text.generate'?: Record<string, unknown> } }[];
}
export function exampleFile(): ExampleFile {
  return {
    packages: [
      {
        slug: 'starter',
        name: 'Starter',
        quota_units: 100,
        limits: { requests_per_minute: 60, concurrency: 2 },
        operations: { 'text.generate': { engine: 'local', units: 1 } },
      } as ExampleFile['packages'][number],
    ],
  };
}

const HEADER = ['| field | type | default | rule |', '| --- | --- | --- | --- |'];

export function packagesFileSchemaJson(): JsonSchema {
  return z.toJSONSchema(packagesFileSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

const INTRODUCTION = [
  '# The packages file',
  '',
  '<!-- Generated by `npm run docs:generate` from server/contract/package-schema.ts; do not edit by hand. -->',
  '',
  'The file `npm run cli -- packages apply FILE` reads (JSON, or YAML when it ends in `.yaml` or `.yml`), the format of',
  "[CONTRACT.md](CONTRACT.md) §7. The dashboard's provider and package forms check their entries with the same schema.",
  'A complete example is [`packages.example.json`](../packages.example.json); how an operator uses it is in',
  '[operating.md](operating.md).',
  '',
  'Applying a file is one transaction: an unchanged package keeps its version, a changed one gets a new version (a',
  'one-engine list written for that engine, or `openai_compatible` with its default alone, is no change), and a file',
  'with any wrong field is refused as a whole, with one line per wrong field (its path and what it allows). The file is',
  "checked in stages, each naming every wrong field it finds: its format (each field's own type and bounds, a package selling no operation among them; rules across",
  'fields, such as a slug named twice, once every field has its type), then its providers\' key variables and',
  'addresses, then its engines, then the prices its budgets need; a stage that finds one ends the check.',
  'Unknown fields are refused everywhere. "required" means the field must be given; a value in the default column',
  'is what an omitted field means; an "optional" field may be left out, and is then not set (no cap, no price), or as',
  'its column says.',
  '',
];

const CLOSING = [
  'When the file is applied, each engine is also checked against its provider: the provider must exist (in the file or',
  'already in the database), its type must be able to serve the operation, and it must honour the settings asked (for',
  "example `wav` speech from `fal` is refused). A provider's type changed by the file is judged the same way against",
  'the packages already stored: the latest version of each, and every older version a key (not revoked) is still locked',
  'to. The table of what each type can serve is in [providers.md](providers.md).',
  '',
  "A provider's `api_key_env` may name its type's own variable (`OPENAI_API_KEY` for `openai`, ...), any name ending in",
  '`_API_KEY` (`MAIN_API_KEY`) but another type\'s own, one starting with `WGS_PROVIDER_KEY_`, or one the server\'s',
  '`PROVIDER_KEY_ENV_ALLOWED` lists; never a variable the service itself reads (`DATABASE_URL`, anything named a',
  'secret, ...). A key from the environment sent anywhere but its type\'s own server is the owner\'s to set up:',
  '[providers.md](providers.md#provider-settings-cannot-be-turned-against-the-service).',
];

export function renderPackagesFileReference(): string {
  const schema = packagesFileSchemaJson();
  const providers = schema.properties!.providers!;
  const packages = schema.properties!.packages!;
  const lines: string[] = [
    ...INTRODUCTION,
    '## The file',
    '',
    ...HEADER,
    row('providers', { type: 'object', default: providers.default }, false),
    `| \`providers.<name>\` | object | — | name ${cell(ruleOf(providers.propertyNames ?? {}).join('; '))} (not \`local\`, the built-in engine's name); one provider entry (below) |`,
    row('packages', { ...packages, items: { type: 'object' } }, (schema.required ?? []).includes('packages')),
    '',
    ...providerSections((providers.additionalProperties as JsonSchema).oneOf!),
    ...packageSections(packages.items!),
    '## Rules across fields',
    '',
    ...CROSS_FIELD_RULES.map(({ rule }) => `- ${rule}`),
    '',
    ...CLOSING,
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

/** A provider entry's common fields, what each type adds, and a model's prices. */
function providerSections(providerTypes: JsonSchema[]): string[] {
  const common = providerTypes[0]!;
  return [
    '## A provider entry',
    '',
    'Every entry has these fields; `type` decides which others it takes (next table).',
    '',
    ...HEADER,
    ...rows('', { ...common, properties: { ...common.properties, type: { type: 'string', enum: providerTypes.map((t) => t.properties!.type!.const) } } }),
    '',
    '| type | `base_url` | further fields |',
    '| --- | --- | --- |',
    ...providerTypes.map((entry) => providerTypeRow(entry, common)),
    '',
    "## A model's prices (an entry of a provider's `prices`, keyed by model id)",
    '',
    'In the deployment\'s `CURRENCY`; they override the genai-prices table for that model (see [billing.md](billing.md)).',
    '',
    ...HEADER,
    ...rows('', (common.properties!.prices!.additionalProperties as JsonSchema) ?? {}),
    '',
  ];
}

function providerTypeRow(entry: JsonSchema, common: JsonSchema): string {
  const type = entry.properties!.type!.const as string;
  const required = entry.required ?? [];
  const extras = Object.entries(entry.properties!)
    .filter(([name]) => !(name in common.properties!))
    .map(([name, node]) => `${code(name)} (${required.includes(name) ? 'required' : 'optional'}; ${ruleOf(node).join('; ')})`);
  return `| ${code(type)} | ${required.includes('base_url') ? 'required' : 'optional'} | ${cell(extras.join(', ') || '—')} |`;
}

/** A package's fields, then each operation's. */
function packageSections(pkg: JsonSchema): string[] {
  const { operations, ...packageFields } = pkg.properties!;
  return [
    '## A package (an entry of `packages`)',
    '',
    ...HEADER,
    ...rows('', { ...pkg, properties: packageFields }),
    row('operations', { type: 'object' }, true),
    '',
    '## A top-up pack (an entry of `sale.top_ups`)',
    '',
    'Units a key sold through Stripe Checkout can add later, at a price in the sale\'s currency ([selling.md](selling.md)).',
    '',
    ...HEADER,
    ...rows('', packageFields.sale?.properties?.top_ups?.items ?? {}),
    '',
    '## An operation (an entry of `operations`)',
    '',
    `\`operations\` names at least one of ${Object.keys(operations!.properties!).map(code).join(', ')}.`,
    '',
    ...Object.entries(operations!.properties!).flatMap(([operation, node]) => [
      `### \`${operation}\``,
      '',
      ...HEADER,
      ...rows('', node),
      '',
    ]),
  ];
}
