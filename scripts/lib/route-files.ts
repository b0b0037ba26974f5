import type { RouteMethods } from '../../server/http/route-methods';

// The route files `npm start` serves without Next's router, each imported by a literal path so
// that the production build (esbuild, scripts/lib/server-bundle.ts) bundles them into dist/ and
// no TypeScript loader is needed at run time. Loaded on first use, after the configuration is
// settled. tests/unit/route-table.test.ts checks this list against the files under app/.
type RouteFile = () => Promise<Partial<RouteMethods>>;

export const ROUTE_FILES: Readonly<Record<string, RouteFile>> = {
  'app/healthz/route.ts': () => import('../../app/healthz/route'),
  'app/readyz/route.ts': () => import('../../app/readyz/route'),
  'app/v1/[[...path]]/route.ts': () => import('../../app/v1/[[...path]]/route'),
  'app/v1/audio/speech/route.ts': () => import('../../app/v1/audio/speech/route'),
  'app/v1/audio/transcribe/route.ts': () => import('../../app/v1/audio/transcribe/route'),
  'app/v1/code/generate/route.ts': () => import('../../app/v1/code/generate/route'),
  'app/v1/images/generate/route.ts': () => import('../../app/v1/images/generate/route'),
  'app/v1/jobs/[jobId]/cancel/route.ts': () => import('../../app/v1/jobs/[jobId]/cancel/route'),
  'app/v1/jobs/[jobId]/route.ts': () => import('../../app/v1/jobs/[jobId]/route'),
  'app/v1/key/route.ts': () => import('../../app/v1/key/route'),
  'app/v1/openapi.json/route.ts': () => import('../../app/v1/openapi.json/route'),
  'app/v1/text/generate/route.ts': () => import('../../app/v1/text/generate/route'),
  'app/v1/uploads/[uploadId]/complete/route.ts': () => import('../../app/v1/uploads/[uploadId]/complete/route'),
  'app/v1/uploads/route.ts': () => import('../../app/v1/uploads/route'),
  'app/v1/videos/generate/route.ts': () => import('../../app/v1/videos/generate/route'),
};
