import js from '@eslint/js';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import layers from './eslint.layers.mjs';

// Next's own rules (React, hooks, a11y, imports) with typescript-eslint's recommended set;
// eslint-config-prettier last, so layout is Prettier's alone.
export default defineConfig([
  globalIgnores([
    '.next/**',
    'dist/**',
    'dist.new/**',
    'dist.building/**',
    '.next.building/**',
    '.next-*/**',
    '.data/**',
    'server/db/generated/**',
    'test-results/**',
    'playwright-report/**',
    'tests/artifacts/**',
    'next-env.d.ts',
    // A deliberate import cycle that tests/unit/layer-rules.test.ts lints on its own (oxlint).
    'tests/unit/fixtures/layer-cycle/**',
  ]),
  js.configs.recommended,
  ...nextVitals,
  ...nextTypescript,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': 'error',
      // Files stay small: a source file past this is split, not allowed to grow.
      'max-lines': ['error', { max: 250, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Tests, and the fakes of the outside services they and `npm run chaos` share (fakes/).
    files: ['tests/**', 'fakes/**'],
    rules: { 'max-lines': ['error', { max: 800, skipBlankLines: true, skipComments: true }] },
  },
  {
    files: ['scripts/**'],
    rules: { 'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Functions stay small in the server and the scripts (the bench and its probes included): a
    // function past 60 lines does two jobs, and is split where they part.
    files: ['server/**', 'scripts/**'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Configuration is read once (server/config/): the rest of the product asks getConfig(), and
    // nothing writes the environment. Entry points, build and test configuration, and tests may.
    files: ['**/*.{ts,tsx,mjs}'],
    ignores: ['server/config/**', 'scripts/**', 'tests/**', 'instrumentation.ts', '*.config.{ts,mjs}'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through getConfig() (server/config/).' },
      ],
    },
  },
  ...layers,
  prettier,
]);
