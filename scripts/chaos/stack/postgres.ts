import { startEmbeddedPostgres, stopEmbeddedPostgres, type EmbeddedDatabase } from '../../../server/db/embedded-postgres';

// The run's own PostgreSQL: the embedded server the product ships with, started by the harness in
// the run's data dir (so the run can restart it under load, on the same port, and the apps'
// DATABASE_URL stays valid), and stopped whatever way the run ends.

export interface ChaosPostgres {
  url: string;
  /** A fast shutdown, `downMs` of nothing, and the server back on its port. */
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startPostgres(dataDir: string): Promise<ChaosPostgres> {
  let server: EmbeddedDatabase | undefined = await startEmbeddedPostgres({ dataDir });
  const { url } = server;
  const port = Number(new URL(url).port);
  return {
    url,
    async restart(downMs) {
      await server?.stop();
      server = undefined;
      await new Promise((resolve) => setTimeout(resolve, downMs));
      server = await startEmbeddedPostgres({ dataDir, port });
    },
    async stop() {
      await server?.stop();
      server = undefined;
      await stopEmbeddedPostgres(dataDir); // one a failed restart left behind
    },
  };
}
