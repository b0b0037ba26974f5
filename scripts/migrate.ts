// `npm run db:migrate` (from the production build: `npm run db:migrate:production`, dist/migrate.js):
// applies prisma/migrations to DATABASE_URL (or the embedded database).
import { disconnectDb } from '../server/db/client';
import { provideDatabase, toolRunsInProduction } from '../server/db/provide-database';

try {
  const database = await provideDatabase({
    borrow: true,
    log: (line) => process.stdout.write(`${line}\n`),
    createEmbedded: !toolRunsInProduction(),
  });
  process.stdout.write('database is up to date\n');
  await disconnectDb();
  await database.stop();
  process.exit(0);
} catch (error) {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
