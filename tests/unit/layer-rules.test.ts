import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layer rules of eslint.layers.mjs, run through the project's own ESLint config (what
// `npm run lint` runs) on a source placed in a layer's folder: each forbidden import is an error,
// an allowed one is not. The probes are linted in memory (no file is written). Import cycles are
// oxlint's (.oxlintrc.json, the other half of `npm run lint`), checked on a cycle of real files.

const root = path.resolve(__dirname, '../..');
const eslint = new ESLint({ cwd: root, ignore: false });
const oxlintBin = path.join(root, 'node_modules/oxlint/bin/oxlint');

async function layerErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, filePath) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'boundaries/dependencies')
    .map((message) => `${message.ruleId}: ${message.message}`);
}

describe('layer rules (npm run lint)', { timeout: 60_000 }, () => {
  it.each([
    ['server/contract/layer-probe.ts', "import { ApiError } from '../domain/errors';"],
    ['server/contract/layer-probe.ts', "import { getConfig } from '@/server/config';"],
    ['server/domain/layer-probe.ts', "import { errorEnvelope } from '../http/error-envelope';"],
    ['server/domain/layer-probe.ts', "import { appRouter } from '@/server/trpc/app-router';"],
    ['server/domain/layer-probe.ts', "import { NextResponse } from 'next/server';"],
    ['server/domain/layer-probe.ts', "import { TRPCError } from '@trpc/server';"],
    ['server/contract/layer-probe.ts', "import { getServerSession } from 'next-auth';"],
    ['server/providers/layer-probe.ts', "import { useState } from 'react';"],
    ['server/providers/layer-probe.ts', "import { ApiError } from '../domain/errors';"],
    ['server/providers/layer-probe.ts', "import { getPool } from '@/server/db/client';"],
    ['server/http/layer-probe.ts', "import { startCommand } from '../../scripts/lib/start-command';"],
    // One forbidden import per layer group: each names a layer above it (or beside it, not below).
    ['server/config/layer-probe.ts', "import { getPool } from '../db/client';"],
    ['server/lifecycle/layer-probe.ts', "import { getConfig } from '../config';"],
    ['server/db/layer-probe.ts', "import { startInstance } from '../instance/start-instance';"],
    ['server/db/layer-probe.ts', "import { countFallback } from '../observability/metrics';"],
    ['server/storage/layer-probe.ts', "import { getPool } from '../db/client';"],
    ['server/observability/layer-probe.ts', "import { displayPrefix } from '../domain/keys/key-secret';"],
    ['server/observability/layer-probe.ts', "import { isStopping } from '../instance/readiness';"],
    ['server/domain/layer-probe.ts', "import { startInstance } from '../instance/start-instance';"],
    ['server/domain/layer-probe.ts', "import { getOperatorSession } from '../auth/session';"],
    ['server/domain/layer-probe.ts', "import { startWorker } from '../jobs/worker';"],
    // The domain's areas import only the areas below them (DOMAIN_AREA_IMPORTS): each of these
    // would close a circle, and the domain's root files import no area.
    ['server/domain/billing/layer-probe.ts', "import { callEngine } from '../generation/call-engine';"],
    ['server/domain/billing/layer-probe.ts', "import { findJob } from '../jobs/job-store';"],
    ['server/domain/providers/layer-probe.ts', "import { applyPackages } from '../packages/apply-packages';"],
    ['server/domain/keys/layer-probe.ts', "import { listUsageEvents } from '../reports/usage-events';"],
    ['server/domain/webhooks/layer-probe.ts', "import { cancelOwnJob } from '../jobs/cancel-job';"],
    ['server/domain/layer-probe.ts', "import { issueKey } from './keys/issue-key';"],
    ['server/auth/layer-probe.ts', "import { traceStep } from '../http/pipeline';"],
    ['server/auth/layer-probe.ts', "import { startWorker } from '../jobs/worker';"],
    ['server/jobs/layer-probe.ts', "import { startInstance } from '../instance/start-instance';"],
    ['server/http/layer-probe.ts', "import { buildOpenApiDocument } from '../openapi/document';"],
    ['server/http/layer-probe.ts', "import { appRouter } from '../trpc/app-router';"],
    ['server/trpc/layer-probe.ts', "import { definePostRoute } from '../http/route-doc';"],
    ['server/openapi/layer-probe.ts', "import { issueKey } from '../domain/keys/issue-key';"],
    ['server/payments/layer-probe.ts', "import { issueKey } from '../domain/keys/issue-key';"],
    ['server/payments/layer-probe.ts', "import { getPool } from '../db/client';"],
    ['server/instance/layer-probe.ts', "import { definePostRoute } from '../http/route-doc';"],
    ['components/layer-probe.tsx', "import { resolveTimeRange } from '@/server/domain/reports/time-range';"],
    ['components/layer-probe.tsx', "import { getConfig } from '@/server/config';"],
    ['components/layer-probe.tsx', "import { appRouter } from '@/server/trpc/app-router';"],
    ['server/http/layer-probe.ts', "import { serviceApp } from '../surfaces/service-app';"],
    ['server/surfaces/layer-probe.ts', "import { appRouter } from '../trpc/app-router';"],
    ['server/surfaces/layer-probe.ts', "import { dashboardCallerOf } from '../exports/next';"],
    // Next's pages take the server's values from the server package, never a bundled copy.
    ['app/layer-probe.ts', "import { dashboardCallerOf } from '@/server/trpc/server-caller';"],
    ['app/layer-probe.ts', "import { getConfig } from '@/server/config';"],
    // The UI reads the API's contract: not even a type of the use cases.
    ['components/layer-probe.tsx', "import type { MarginReport } from '@/server/domain/reports/margin';"],
    ['app/layer-probe.ts', "import type { KeyView } from '@/server/domain/keys/key-view';"],
    ['app/layer-probe.ts', "import type { ApiError } from '@/server/domain/errors';"],
  ])('%s may not `%s`', async (filePath, source) => {
    const errors = await layerErrors(filePath, `${source}\nexport const probe = [${source.match(/\{ (\w+)/)?.[1]}];\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^boundaries\/dependencies: /);
  });

  it.each([
    ['server/contract/layer-probe.ts', "import { OPERATIONS } from './values';"],
    ['server/domain/generation/layer-probe.ts', "import { resolveEngine } from '../providers/resolve-engine';"],
    ['server/domain/jobs/layer-probe.ts', "import { ApiError } from '../errors';"],
    ['server/domain/layer-probe.ts', "import { getPool } from '@/server/db/client';"],
    ['server/providers/layer-probe.ts', "import { PROVIDER_TYPES } from '../contract/provider-types';"],
    ['server/domain/layer-probe.ts', "import { isStopping } from '../lifecycle/shutdown-hooks';"],
    ['server/observability/layer-probe.ts', "import { onShutdown } from '../lifecycle/shutdown-hooks';"],
    ['server/instance/layer-probe.ts', "import { startWorker } from '../jobs/worker';"],
    ['server/openapi/layer-probe.ts', "import { jsonText } from '../http/responses';"],
    ['components/layer-probe.tsx', "import { packageDefinitionSchema } from '@/server/contract/package-schema';"],
    ['components/layer-probe.tsx', "import type { MarginReport } from '@/server/trpc/outputs';"],
    ['components/layer-probe.tsx', "import type { AppRouter } from '@/server/trpc/app-router';"],
    ['server/http/layer-probe.ts', "import { ApiError } from '@/server/domain/errors';"],
    ['server/surfaces/layer-probe.ts', "import { serveReadiness } from '../instance/readiness';"],
    ['server/exports/layer-probe.ts', "import { serviceApp } from '../surfaces/service-app';"],
    ['app/layer-probe.ts', "import { OPERATIONS } from '@/server/contract/values';"],
    ['app/layer-probe.ts', "import type { OperatorSession } from '@/server/auth/session';"],
    ['app/layer-probe.ts', "import { dashboardCallerOf } from '@wgs/server/next';"],
  ])('%s may `%s`', async (filePath, source) => {
    const errors = await layerErrors(filePath, `${source}\nexport const probe = [${source.match(/\{ (\w+)/)?.[1]}];\n`);
    expect(errors).toEqual([]);
  });

  it.each([
    ['server/domain/layer-probe.ts', 'export const probe = process.env.DATABASE_URL;'],
    ['server/storage/layer-probe.ts', "export const probe = process.env['SIGNING_SECRET'];"],
    ['app/layer-probe.ts', 'const { env } = process;\nexport const probe = env.PORT;'],
    ['components/layer-probe.tsx', "export const probe = () => { process.env.PORT = '1'; };"],
  ])('%s may not read or write process.env: `%s`', async (filePath, source) => {
    const [result] = await eslint.lintText(`${source}\n`, { filePath: path.join(root, filePath) });
    expect(result?.messages.map((message) => message.ruleId)).toContain('no-restricted-properties');
  });

  it.each([
    ['server/config/layer-probe.ts', 'export const probe = process.env.DATABASE_URL;'],
    ['scripts/layer-probe.ts', 'export const probe = process.env.DATABASE_URL;'],
    ['tests/unit/layer-probe.test.ts', 'export const probe = process.env.DATABASE_URL;'],
  ])('%s may use process.env', async (filePath, source) => {
    const [result] = await eslint.lintText(`${source}\n`, { filePath: path.join(root, filePath) });
    expect(result?.messages.map((message) => message.ruleId)).not.toContain('no-restricted-properties');
  });

  it('every folder of server/ has its layer group in eslint.layers.mjs', async () => {
    const { layerElements } = (await import(path.join(root, 'eslint.layers.mjs'))) as { layerElements: { pattern: string }[] };
    const patterns = new Set(layerElements.map((element) => element.pattern));
    const entries = readdirSync(path.join(root, 'server'), { withFileTypes: true });
    expect(entries.filter((entry) => entry.isFile()).map((entry) => entry.name)).toEqual([]);
    const ungrouped = entries.filter((entry) => entry.isDirectory() && !patterns.has(`server/${entry.name}`)).map((entry) => entry.name);
    expect(ungrouped).toEqual([]);
  });

  it('every area of server/domain is an element, and no two areas import each other, directly or in a circle', async () => {
    const { DOMAIN_AREA_IMPORTS } = (await import(path.join(root, 'eslint.layers.mjs'))) as {
      DOMAIN_AREA_IMPORTS: Record<string, string[]>;
    };
    const folders = readdirSync(path.join(root, 'server/domain'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.map((entry) => entry.name).sort()).toEqual(Object.keys(DOMAIN_AREA_IMPORTS).sort());
    // Depth-first from each area: reaching an area still on the path is a circle.
    const circles: string[] = [];
    const walk = (area: string, trail: string[]) => {
      if (trail.includes(area)) return circles.push([...trail.slice(trail.indexOf(area)), area].join(' -> '));
      for (const next of DOMAIN_AREA_IMPORTS[area] ?? []) walk(next, [...trail, area]);
    };
    for (const area of Object.keys(DOMAIN_AREA_IMPORTS)) walk(area, []);
    expect(circles).toEqual([]);
  });

  it('an import cycle is an error (oxlint with .oxlintrc.json; npm run lint passes this folder over)', () => {
    const lint = spawnSync(process.execPath, [oxlintBin, '--format', 'unix', 'tests/unit/fixtures/layer-cycle'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(lint.status).toBe(1);
    expect(lint.stdout).toContain('first.ts');
    expect(lint.stdout).toMatch(/no-cycle/);
  });
});
