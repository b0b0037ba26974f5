import boundaries from 'eslint-plugin-boundaries';

// Layer rules (see the code map in ARCHITECTURE.md). Each folder below is an "element";
// `boundaries/dependencies` allows an element the layers listed in LAYER_IMPORTS and forbids
// every other one. `import/no-cycle` (eslint-plugin-import, part of eslint-config-next) forbids
// cycles. tests/unit/layer-rules.test.ts fails on a server folder without a layer here.
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
  { type: 'observability', pattern: 'server/observability' },
  // Use cases: plain TypeScript over the database, engines and storage; no transport.
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
const BELOW_DOMAIN = [...BOTTOM, 'db', 'storage', 'providers', 'payments', 'mail', 'observability'];
const BELOW_TRANSPORTS = [...BELOW_DOMAIN, 'domain', 'auth'];

/** The layers each server layer may import (besides its own files); every other one is an error. */
export const LAYER_IMPORTS = {
  contract: [],
  config: [],
  lifecycle: [],
  db: ['config', 'lifecycle'],
  storage: ['contract', 'config'],
  providers: ['contract', 'config'],
  payments: ['contract', 'config'],
  mail: ['contract', 'config'],
  observability: ['contract', 'config', 'lifecycle', 'db'],
  domain: BELOW_DOMAIN,
  auth: [...BELOW_DOMAIN, 'domain'],
  jobs: [...BELOW_DOMAIN, 'domain'],
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
    from: anyOf(...BELOW_DOMAIN, 'domain', 'jobs'),
    disallow: { to: packages('next', 'next-auth', '@trpc/*', 'react', 'react-dom') },
  },
  {
    // The browser's code imports of the server only the contract's values: a type from the use
    // cases or the dashboard API's router (AppRouter) is erased from the bundle, a value is not.
    from: anyOf('components'),
    disallow: { to: anyOf(...ALL.filter((type) => !['contract', 'components', 'app'].includes(type))) },
  },
  {
    from: anyOf('components'),
    allow: { to: anyOf('domain', 'trpc'), dependency: { kind: 'type' } },
  },
  {
    // Next's pages and route handlers take the server's values from the server package
    // (`@wgs/server/next`, `@wgs/server/api`), which Next loads unbundled: a value imported from
    // server/ itself would be bundled, a second copy of its module beside the one npm start's
    // server runs. The contract's schemas and constants are the exception (the browser needs
    // them too), and types, which the bundle erases.
    from: anyOf('app'),
    disallow: { to: anyOf(...ALL.filter((type) => !['contract', 'components', 'app'].includes(type))) },
  },
  {
    from: anyOf('app'),
    allow: { to: anyOf(...ALL.filter((type) => !['scripts', 'tests'].includes(type))), dependency: { kind: 'type' } },
  },
];
export const layerRules = {
  // checkAllOrigins: packages (next, @trpc/*) are checked too, not only the project's own files.
  'boundaries/dependencies': ['error', { default: 'allow', checkAllOrigins: true, policies: layerPolicies }],
  'import/no-cycle': ['error', { ignoreExternal: true }],
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
