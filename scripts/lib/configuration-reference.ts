import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
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

/** The page as `npm run docs:config` writes it (formatted as `prettier --write` would). */
export async function renderConfigurationReference(root: string): Promise<string> {
  const file = join(root, 'docs', 'configuration.md');
  return format(markdown(), { ...(await resolveConfig(file)), filepath: file });
}

function markdown(): string {
  const rows = [...SETTINGS.entries()].map(
    ([name, setting]) =>
      `| \`${name}\` | ${defaultOf(setting.schema)} | ${setting.shapes.map((shape) => SHAPE_NAMES[shape]).join(', ')} | ${cell(setting.description)}${setting.readElsewhere ? ' (Read where it is used, not validated at start.)' : ''} |`,
  );
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from server/config/config-settings.ts by `npm run docs:config`; edit the descriptions there. -->',
    '',
    'Every environment variable the service reads. The product validates them once as a process starts',
    '(server/config/index.ts): a wrong value stops it with a line naming the variable. A blank value (`FOO=`, as',
    'compose writes an unset `${FOO}`) means unset; every number is at most 2147483647 (less where said); the',
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
