import boundaries from 'eslint-plugin-boundaries';

// Layer rules (see the code map in ARCHITECTURE.md). Each folder below is an "element";
// `boundaries/dependencies` allows an element the layers listed in LAYER_IMPORTS and forbids
// every other one. Import cycles are forbidden by oxlint's `import/no-cycle` (.oxlintrc.json,
// the second half of `npm run lint`: eslint-plugin-import's rule took two thirds of the lint's CPU). tests/unit/layer-rules.test.ts fails on a server folder without a layer here.

/**
 * The areas of server/domain, from the bottom up, each with the areas it may import (besides the
 * domain's root files: errors, actor, operations, pagination, the job row, ..., which import no
 * area). Each area is an element of its own, so an import outside this table fails the lint, and
 * tests/unit/layer-rules.test.ts checks that the table has no circle: no two areas import each
 * other, directly or around a loop. Shared types sit in the lower module (billing's usage report,
 * the job row), shared helpers at the root (pagination).
 */
export const DOMAIN_AREA_IMPORTS = {
  audit: [],
  retention: [],
  'rate-limit': [],
  queue: [],
  keys: ['audit'],
  operators: ['audit'],
  reports: ['keys'],
  uploads: ['keys', 'retention'],
  webhooks: ['audit', 'rate-limit', 'queue'],
  billing: ['audit', 'keys', 'rate-limit', 'webhooks'],
  sales: ['audit', 'billing', 'keys', 'rate-limit'],
  providers: ['audit', 'billing', 'reports'],
  packages: ['audit', 'providers'],
  generation: ['billing', 'keys', 'providers', 'retention', 'uploads'],
  jobs: ['billing', 'generation', 'keys', 'queue', 'retention', 'uploads', 'webhooks'],
  portal: ['audit', 'keys', 'rate-limit', 'reports', 'sales', 'webhooks'],
};
const domainArea = (area) => `domain-${area}`;
/** The domain's element types: its root files ('domain') and each area. */
const DOMAIN = ['domain', ...Object.keys(DOMAIN_AREA_IMPORTS).map(domainArea)];

export const layerElements = [
  // The bottom: zod schemas of every request and response, every enum and limit the dashboard
  // and the API share; the settings, read once; the process's shutdown hooks and in-flight calls.
  { type: 'contract', pattern: 'server/contract' },
  { type: 'config', pattern: 'server/config' },
  { type: 'lifecycle', pattern: 'server/lifecycle' },
  // What the use cases stand on: the database, object storage, engines, and the counts and
  // traces everything above reports to.
  { type: 'db', pattern: 'server/db' },
  { type: 'storage', pattern: 'server/storage' },
  { type: 'providers', pattern: 'server/providers' },
  // Payments: the Stripe SDK's client and its calls (selling), beside the engines.
  { type: 'payments', pattern: 'server/payments' },
  // E-mail to buyers over SMTP (nodemailer), beside payments.
  { type: 'mail', pattern: 'server/mail' },
  // Secrets kept at rest and read back (provider keys, webhook signing secrets, a sold key's
  // secret until it is shown), sealed with the configured secret.
  { type: 'secrets', pattern: 'server/secrets' },
  { type: 'observability', pattern: 'server/observability' },
  // Use cases: plain TypeScript over the database, engines and storage; no transport. Each area
  // (server/domain/<area>) before the root files, which the last pattern takes.
  ...Object.keys(DOMAIN_AREA_IMPORTS).map((area) => ({ type: domainArea(area), pattern: `server/domain/${area}` })),
  { type: 'domain', pattern: 'server/domain' },
  // Dashboard sign-in, and the video job worker: above the use cases.
  { type: 'auth', pattern: 'server/auth' },
  { type: 'jobs', pattern: 'server/jobs' },
  // The transports: the /v1 edge (the only code that knows HTTP for /v1), the dashboard API,
  // and the OpenAPI document built from the /v1 route specs.
  { type: 'http', pattern: 'server/http' },
  { type: 'trpc', pattern: 'server/trpc' },
  { type: 'openapi', pattern: 'server/openapi' },
  // What an instance starts (seeding, housekeeping, workers, observability) and its readiness.
  { type: 'instance', pattern: 'server/instance' },
  // The public surfaces' route tables and the one app that serves them with the probes.
  { type: 'surfaces', pattern: 'server/surfaces' },
  // The server package's entry points (packages/server): what Next and npm start's server load.
  { type: 'exports', pattern: 'server/exports' },
  // Next's routes and pages, and the React components they render.
  { type: 'app', pattern: 'app' },
  { type: 'components', pattern: 'components' },
  // Entry points (start, worker, CLI, bench) and tests sit on top and may import anything.
  { type: 'scripts', pattern: 'scripts' },
  { type: 'tests', pattern: 'tests' },
];

const BOTTOM = ['contract', 'config', 'lifecycle'];
const BELOW_DOMAIN = [...BOTTOM, 'db', 'storage', 'providers', 'payments', 'mail', 'secrets', 'observability'];
const BELOW_TRANSPORTS = [...BELOW_DOMAIN, ...DOMAIN, 'auth'];

/** The layers each server layer may import (besides its own files); every other one is an error. */
export const LAYER_IMPORTS = {
  contract: [],
  config: [],
  lifecycle: [],
  db: ['config', 'lifecycle'],
  storage: ['contract', 'config'],
  providers: ['contract', 'config', 'lifecycle'],
  payments: ['contract', 'config'],
  mail: ['contract', 'config'],
  secrets: ['config'],
  observability: ['contract', 'config', 'lifecycle', 'db'],
  domain: BELOW_DOMAIN,
  ...Object.fromEntries(
    Object.entries(DOMAIN_AREA_IMPORTS).map(([area, areas]) => [domainArea(area), [...BELOW_DOMAIN, 'domain', ...areas.map(domainArea)]]),
  ),
  auth: [...BELOW_DOMAIN, ...DOMAIN],
  jobs: [...BELOW_DOMAIN, ...DOMAIN],
  http: BELOW_TRANSPORTS,
  trpc: BELOW_TRANSPORTS,
  openapi: [...BOTTOM, 'auth', 'http'],
  instance: [...BELOW_TRANSPORTS, 'jobs'],
  surfaces: [...BELOW_TRANSPORTS, 'http', 'openapi', 'instance'],
  exports: [...BELOW_TRANSPORTS, 'jobs', 'http', 'trpc', 'openapi', 'instance', 'surfaces'],
};

const ALL = layerElements.map((element) => element.type);
const anyOf = (...types) => ({ element: { types: { anyOf: types } } });
// A package by its name (`next` covers `next/server`, `@trpc/*` every tRPC package).
const packages = (...sources) => ({ module: { origin: 'external', source: sources } });

export const layerPolicies = [
  ...Object.entries(LAYER_IMPORTS).map(([layer, allowed]) => ({
    from: anyOf(layer),
    disallow: { to: anyOf(...ALL.filter((type) => type !== layer && !allowed.includes(type))) },
  })),
  {
    // No Next, next-auth, tRPC or React below the transports (the use cases, the engines, ...).
    from: anyOf(...BELOW_DOMAIN, ...DOMAIN, 'jobs'),
    disallow: { to: packages('next', 'next-auth', '@trpc/*', 'react', 'react-dom') },
  },
  {
    // The browser's code imports of the server only the contract's values, and the dashboard
    // API's types (AppRouter, its outputs in server/trpc/outputs.ts), which the bundle erases. Never
    // the use cases, not even a type: the UI reads the API's contract, not the domain's internals.
    from: anyOf('components'),
    disallow: { to: anyOf(...ALL.filter((type) => !['contract', 'components', 'app'].includes(type))) },
  },
  {
    from: anyOf('components'),
    allow: { to: anyOf('trpc'), dependency: { kind: 'type' } },
  },
  {
    // Next's pages and route handlers take the server's values from the server package
    // (`@wgs/server/next`, `@wgs/server/api`), which Next loads unbundled: a value imported from
    // server/ itself would be bundled, a second copy of its module beside the one npm start's
    // server runs. The contract's schemas and constants are the exception (the browser needs
    // them too), and types, which the bundle erases, but none of the use cases' (as components/).
    from: anyOf('app'),
    disallow: { to: anyOf(...ALL.filter((type) => !['contract', 'components', 'app'].includes(type))) },
  },
  {
    from: anyOf('app'),
    allow: { to: anyOf(...ALL.filter((type) => !['scripts', 'tests', ...DOMAIN].includes(type))), dependency: { kind: 'type' } },
  },
];
export const layerRules = {
  // checkAllOrigins: packages (next, @trpc/*) are checked too, not only the project's own files.
  'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, policies: layerPolicies }],
};

const layers = [
  {
    files: ['**/*.{ts,tsx,mjs}'],
    plugins: { boundaries },
    settings: { 'boundaries/elements': layerElements },
    rules: layerRules,
  },
];

export default layers;
