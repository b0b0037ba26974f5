import { defineConfig } from 'prisma/config';

// DATABASE_URL is only needed by Prisma's own migrate commands, where its engine can be
// downloaded. The app migrates itself (server/db/migrate.ts) and generates offline.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  ...(process.env.DATABASE_URL ? { datasource: { url: process.env.DATABASE_URL } } : {}),
});
