import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '@/server/config/config-settings';
import { renderConfigurationReference } from '../../scripts/lib/configuration-reference';

// docs/configuration.md is generated from the configuration schema: the two must not differ,
// and every variable the code reads must be in the schema (so it is in the reference).

const ROOT = resolve(import.meta.dirname, '../..');

/** Variables the code reads that are no operator's setting: set by Node, Next, npm, or the developer tools. */
const NOT_SETTINGS = new Set([
  'NEXT_RUNTIME',
  'NEXT_PHASE',
  'NEXT_TELEMETRY_DISABLED',
  'NEXT_PUBLIC_VERCEL_BLOB_API_URL', // an alias of VERCEL_BLOB_API_URL, documented with it
  'INIT_CWD',
  'NODE_OPTIONS', // Node's own: the start reads it to see whether AsyncContextFrame was chosen (scripts/lib/async-context-frame.mjs)
  'PRISMA_SCHEMA_ENGINE_BINARY',
  'WGS_API_KEY', // the buyer's variable in the examples /buy, the success page and the portal show (components/sales/api-examples.tsx)
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'generated' || entry.startsWith('bench')) return []; // generated code; the benchmark's own knobs
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs)$/.test(entry) ? [path] : [];
  });
}

describe('docs/configuration.md', () => {
  it('is what npm run docs:config renders from the schema', async () => {
    const file = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(file, 'docs/configuration.md differs from the schema: run npm run docs:config').toBe(await renderConfigurationReference(ROOT));
  });

  it('lists each setting once, with a description and a default or (unset)', async () => {
    const file = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    for (const [name, setting] of SETTINGS) {
      expect(setting.description.length, name).toBeGreaterThan(5);
      expect(file.match(new RegExp(`^\\| \`${name}\` +\\|`, 'gm')), name).toHaveLength(1);
    }
    expect(file).toMatch(/^\| `PORT` +\| `3000` +\|/m);
    expect(file).toMatch(/^\| `SHUTDOWN_GRACE_SECONDS` +\| `25` +\|/m);
  });

  it('covers every environment variable the product reads', () => {
    const files = [
      ...['app', 'server', 'scripts', 'components'].flatMap((dir) => sourceFiles(join(ROOT, dir))),
      join(ROOT, 'instrumentation.ts'),
      join(ROOT, 'next.config.mjs'),
    ];
    const read = new Set<string>();
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)|environmentVariable\('([A-Z][A-Z0-9_]*)'\)/g))
        read.add((match[1] ?? match[2])!);
    }
    expect(read.size).toBeGreaterThan(10);
    const undocumented = [...read].filter((name) => !SETTINGS.has(name) && !NOT_SETTINGS.has(name)).sort();
    expect(undocumented, 'read by the code but missing from server/config/config-settings.ts').toEqual([]);
  });
});
