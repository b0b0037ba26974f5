import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { innerSchema } from '../../server/config/config-doc';
import { SETTINGS, type ConfigShape } from '../../server/config/config-settings';

// docs/configuration.md, rendered from the configuration schema (server/config/config-settings.ts):
// `npm run docs:config` writes it, and a unit test fails when the file and the schema differ.

const SHAPE_NAMES: Record<ConfigShape, string> = { embedded: 'embedded', production: 'production', tests: 'tests' };

/** The value a setting takes when it is unset, as the schema gives it. */
function defaultOf(schema: { safeParse(value: unknown): { success: boolean; data?: unknown } }): string {
  const parsed = schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return '(unset)';
  return `\`${String(parsed.data)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** The bounds a number or text setting is checked against, as the schema states them ("1 to 3600"); '' when none. */
function boundsOf(schema: unknown): string {
  const checks = (innerSchema(schema)._zod?.def?.checks ?? []).map((check) => check._zod.def);
  const integer = checks.some((check) => check.format === 'safeint' || check.format === 'int32');
  const low = checks.find((check) => check.check === 'greater_than');
  const high = checks.find((check) => check.check === 'less_than');
  const minimum = low && (low.inclusive || !integer ? low.value! : low.value! + 1);
  const maximum = high && (high.inclusive || !integer ? high.value! : high.value! - 1);
  if (maximum !== undefined && maximum < 2_147_483_647) {
    return minimum !== undefined && minimum > 0 ? `${minimum} to ${maximum}` : `at most ${maximum}`;
  }
  if (minimum !== undefined && minimum > 1) return `at least ${minimum}`;
  const length = checks.find((check) => check.check === 'min_length');
  return length?.minimum && length.minimum > 1 ? `at least ${length.minimum} characters` : '';
}

/** The page as `npm run docs:config` writes it (formatted as `prettier --write` would). */
export async function renderConfigurationReference(root: string): Promise<string> {
  const file = join(root, 'docs', 'configuration.md');
  return format(markdown(), { ...(await resolveConfig(file)), filepath: file });
}

const boundsNote = (schema: unknown) => {
  const bounds = boundsOf(schema);
  return bounds ? ` Allowed: ${bounds}.` : '';
};

function markdown(): string {
  const rows = [...SETTINGS.entries()].map(
    ([name, setting]) =>
      `| \`${name}\` | ${defaultOf(setting.schema)} | ${setting.shapes.map((shape) => SHAPE_NAMES[shape]).join(', ')} | ${cell(setting.description)}${boundsNote(setting.schema)}${setting.readElsewhere ? ' (Read where it is used, not validated at start.)' : ''} |`,
  );
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from server/config/config-settings.ts by `npm run docs:config`; edit the descriptions there. -->',
    '',
    'Every environment variable the service reads. The product validates them once as a process starts',
    '(server/config/index.ts): a wrong value stops it with a line naming the variable. A blank value (`FOO=`, as',
    'compose writes an unset `${FOO}`) means unset; every number is written in decimal (`0x10` or `1e3` are',
    'refused) and is at most 2147483647 (less where said); the',
    "settings that only mean something together (Stripe's two, each sign-in provider's id and secret) are set",
    'together or not at all. **Shapes** says where a',
    'variable matters: *embedded* is `npm start` on one machine (embedded PostgreSQL, secrets generated',
    'into the data dir), *production* is the production command, the worker and the container image',
    '([deploy.md](deploy.md)), *tests* is the test suite.',
    '',
    "The production command (`npm run start:production`, the image's CMD) refuses to start without",
    '`DATABASE_URL`, `SIGNING_SECRET`, `NEXTAUTH_SECRET`, `NEXTAUTH_URL` and `PROVIDER_KEYS_SECRET`; the',
    'production worker without `DATABASE_URL`, `SIGNING_SECRET` and `PROVIDER_KEYS_SECRET`. Provider API',
    'keys are read from the variables the packages file names (`api_key_env`), or stored encrypted with',
    '`npm run cli -- providers set-key`.',
    '',
    '| Variable | Default | Shapes | Meaning |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}
