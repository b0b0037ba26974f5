// The provider path's own cost, in-process (no Next.js, no HTTP server in front): text.generate
// through the local engine and through an `openai-compatible` engine pointed at the instant
// provider (its own process), sequentially and 20 at a time; CPU of this process per call.
// Run: npx tsx scripts/bench/provider-probe.ts   (PROBE_ONLY=provider to profile that path alone)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function startInstantProvider(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/instant-provider.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /"port":(\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`instant provider exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/v1`, stop: () => child.kill() };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'wgs-provider-probe-'));
  const instant = await startInstantProvider();
  const { startEmbeddedPostgres } = await import('../../server/db/embedded-postgres');
  const { migrateDatabase } = await import('../../server/db/migrate');
  const db = await startEmbeddedPostgres({ dataDir });
  await migrateDatabase(db.url);
  process.env.DATABASE_URL = db.url;
  process.env.SIGNING_SECRET ??= 'x'.repeat(40);
  const { getPrisma, disconnectDb } = await import('../../server/db/client');
  const { applyPackages, parsePackagesFile } = await import('../../server/domain/packages/apply-packages');
  const { issueKey } = await import('../../server/domain/keys/issue-key');
  const { CLI_ACTOR } = await import('../../server/domain/actor');
  const probePackage = (slug: string, engine: string) => ({
    slug,
    name: slug,
    quota_units: 100_000_000,
    limits: { requests_per_minute: 1_000_000, concurrency: 1000 },
    operations: { 'text.generate': { engine, units: 1 } },
  });
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({
      providers: { instant: { type: 'openai-compatible', base_url: instant.url } },
      packages: [probePackage('local-path', 'local'), probePackage('provider-path', 'instant:bench-model')],
    }),
  );
  const localKey = (await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'local-path' })).key;
  const providerKey = (await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'provider-path' })).key;
  const { textGenerateRoute } = await import('../../server/http/routes/text-and-code');
  let n = 0;
  const body = JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' });
  // PROBE_ALS=1: each call inside AsyncLocalStorage contexts, as Next.js runs a route handler
  // (with a store active, every promise pays Node's promise hooks).
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const stores = Array.from({ length: Number(process.env.PROBE_ALS ?? 0) }, () => new AsyncLocalStorage<object>());
  const withStores = <T>(work: () => Promise<T>): Promise<T> =>
    stores.reduce<() => Promise<T>>((inner, store) => () => store.run({}, inner), work)();
  const call = (key: string) => withStores(() => callOnce(key));
  const callOnce = async (key: string) => {
    const response = await textGenerateRoute(
      new Request('http://127.0.0.1:1/v1/text/generate', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `provider-probe-${++n}` },
        body,
      }),
    );
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${response.status} ${text}`);
  };
  const run = async (label: string, calls: number, parallel: number, key: string) => {
    const batch = () => Promise.all(Array.from({ length: parallel }, () => call(key)));
    for (let i = 0; i < 200 / parallel; i++) await batch();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < calls / parallel; i++) await batch();
    const cpu = process.cpuUsage(cpu0);
    const perCall = (us: number) => (us / calls).toFixed(0).padStart(5);
    console.log(`${label.padEnd(34)} ${perCall(cpu.user + cpu.system)} us CPU/call ${perCall((performance.now() - t0) * 1000)} us wall`);
  };
  const only = process.env.PROBE_ONLY;
  for (const parallel of [1, 20]) {
    if (only !== 'provider') await run(`local path, ${parallel} at a time`, 3000, parallel, localKey);
    if (only !== 'local') await run(`provider path, ${parallel} at a time`, 3000, parallel, providerKey);
  }
  await disconnectDb();
  await db.stop();
  instant.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
