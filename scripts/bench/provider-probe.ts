// The provider path's own cost, in-process (no Next.js, no HTTP server in front): text.generate
// through the local engine and through an `openai-compatible` engine pointed at the instant
// provider (its own process), sequentially and 20 at a time; CPU of this process per call.
// Run: npx tsx scripts/bench/provider-probe.ts   (PROBE_ONLY=provider to profile that path alone,
// PROBE_PARALLEL=1 for the sequential calls alone)
import { spawn } from 'node:child_process';
import { textGenerateCalls } from './probe-calls';
import { startProbeDatabase } from './probe-database';
import { runProbe } from './run-probe';

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
  const instant = await startInstantProvider();
  process.env.SIGNING_SECRET ??= 'x'.repeat(40);
  const database = await startProbeDatabase('provider-probe');
  const localKey = database.key;
  // A second package on the same database, sold through the instant provider.
  const { getPrisma } = await import('../../server/db/client');
  const { applyPackages, parsePackagesFile } = await import('../../server/domain/packages/apply-packages');
  const { issueKey } = await import('../../server/domain/keys/issue-key');
  const { CLI_ACTOR } = await import('../../server/domain/actor');
  const limits = { requests_per_minute: 1_000_000, concurrency: 1000 };
  const operations = { 'text.generate': { engine: 'instant:bench-model', units: 1 } };
  const providers = { instant: { type: 'openai-compatible', base_url: instant.url } };
  const file = parsePackagesFile({
    providers,
    packages: [{ slug: 'provider-path', name: 'provider path', quota_units: 10_000_000, limits, operations }],
  });
  await applyPackages(getPrisma(), CLI_ACTOR, file);
  const providerKey = (await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'provider-path' })).key;
  const paid = await textGenerateCalls('provider-probe');
  // PROBE_ALS=1: each call inside AsyncLocalStorage contexts, as Next.js runs a route handler
  // (with a store active, every promise pays Node's promise hooks).
  const { AsyncLocalStorage } = await import('node:async_hooks');
  const stores = Array.from({ length: Number(process.env.PROBE_ALS ?? 0) }, () => new AsyncLocalStorage<object>());
  const withStores = <T>(work: () => Promise<T>): Promise<T> =>
    stores.reduce<() => Promise<T>>((inner, store) => () => store.run({}, inner), work)();
  const call = (key: string) => withStores(() => callOnce(key));
  const callOnce = (key: string) => paid.call(key);
  const run = async (label: string, calls: number, parallel: number, key: string) => {
    const batch = () => Promise.all(Array.from({ length: parallel }, () => call(key)));
    for (let i = 0; i < 200 / parallel; i++) await batch();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < calls / parallel; i++) await batch();
    const cpu = process.cpuUsage(cpu0);
    const perCall = (us: number) => (us / calls).toFixed(0).padStart(5);
    console.log(
      `${label.padEnd(34)} ${perCall(cpu.user + cpu.system)} us CPU/call (user ${perCall(cpu.user)}, system ${perCall(cpu.system)}) ${perCall((performance.now() - t0) * 1000)} us wall`,
    );
  };
  const only = process.env.PROBE_ONLY;
  const parallels = process.env.PROBE_PARALLEL ? [Number(process.env.PROBE_PARALLEL)] : [1, 20];
  for (const parallel of parallels) {
    if (only !== 'provider') await run(`local path, ${parallel} at a time`, 3000, parallel, localKey);
    if (only !== 'local') await run(`provider path, ${parallel} at a time`, 3000, parallel, providerKey);
  }
  await database.close();
  instant.stop();
}

runProbe(main);
