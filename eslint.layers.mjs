import boundaries from 'eslint-plugin-boundaries';

// Layer rules (see the folder map in ARCHITECTURE.md). Each folder below is an "element";
// `boundaries/dependencies` forbids the imports listed in the policies and allows the rest.
// `import/no-cycle` (eslint-plugin-import, already part of eslint-config-next) forbids cycles.
export const layerElements = [
  // zod schemas of every request and response: the bottom of the server, imports no server code.
  { type: 'contract', pattern: 'server/contract' },
  // Use cases: plain TypeScript over the database, engines and storage; no transport.
  { type: 'domain', pattern: 'server/domain' },
  // Engines (AI SDK, OpenAI, local): below the domain, never above it.
  { type: 'providers', pattern: 'server/providers' },
  // The /v1 edge: the only code that knows HTTP for /v1.
  { type: 'http', pattern: 'server/http' },
  // The dashboard API.
  { type: 'trpc', pattern: 'server/trpc' },
  // The database client and embedded PostgreSQL: engines never reach it (the domain reads for them).
  { type: 'db', pattern: 'server/db' },
  // Every other server folder (config, storage, observability, auth, ...).
  { type: 'server', pattern: 'server' },
  // Next's routes and pages, and the React components they render.
  { type: 'app', pattern: 'app' },
  { type: 'components', pattern: 'components' },
  // Entry points (start, worker, CLI, bench) and tests sit on top and may import anything.
  { type: 'scripts', pattern: 'scripts' },
  { type: 'tests', pattern: 'tests' },
];

const anyOf = (...types) => ({ element: { types: { anyOf: types } } });
// A package by its name (`next` covers `next/server`, `@trpc/*` every tRPC package).
const packages = (...sources) => ({ module: { origin: 'external', source: sources } });

export const layerPolicies = [
  {
    // server/contract imports nothing of the server (zod and its own files only).
    from: anyOf('contract'),
    disallow: { to: anyOf('domain', 'providers', 'db', 'http', 'trpc', 'server', 'app', 'components', 'scripts', 'tests') },
  },
  {
    // server/domain knows nothing of HTTP, Next, tRPC or the app.
    from: anyOf('domain'),
    disallow: { to: anyOf('http', 'trpc', 'app', 'components', 'scripts', 'tests') },
  },
  {
    // ... nor do the contract and the engines: no Next, next-auth, tRPC or React below the transports.
    from: anyOf('domain', 'contract', 'providers'),
    disallow: { to: packages('next', 'next-auth', '@trpc/*', 'react', 'react-dom') },
  },
  {
    // Engines sit below the domain: what both need lives in server/providers or server/contract.
    from: anyOf('providers'),
    disallow: { to: anyOf('domain', 'db', 'http', 'trpc', 'app', 'components', 'scripts', 'tests') },
  },
  {
    // Nothing in the server reaches up into entry points or tests.
    from: anyOf('server', 'db', 'http', 'trpc'),
    disallow: { to: anyOf('scripts', 'tests') },
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
