// Whether the versions one key's rows gather within a batch cost PostgreSQL CPU: the /v1
// text.generate pipeline in-process, 20 calls in flight, chunks of 5,000 calls alternately all on one
// key and spread over 20 keys (the same writes, but no row written twice by one batch).
// Run: npx tsx scripts/bench/keys-probe.ts
import { textGenerateCalls } from './probe-calls';
import { startProbeDatabase } from './probe-database';
import { cpuByPid, cpuSpent, postgresPids } from './proc-stats';

const CHUNK = 5000;
async function main() {
  process.env.SIGNING_SECRET = 'x'.repeat(40);
  const probe = await startProbeDatabase('kp');
  const { getPool, getPrisma } = await import('../../server/db/client');
  const { issueKey } = await import('../../server/domain/keys/issue-key');
  const { CLI_ACTOR } = await import('../../server/domain/actor');
  const keys = [probe.key];
  for (let i = 0; i < 19; i++) keys.push((await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: 'kp' })).key);
  const paid = await textGenerateCalls('keys-probe');
  const run = async (spread: number) => {
    for (let i = 0; i < 15; i++) await Promise.all(Array.from({ length: 20 }, (_, j) => paid.call(keys[j % spread]!)));
  };
  await run(20);
  await getPool().query('ANALYZE');
  for (const spread of [1, 20, 1, 20, 1, 20]) {
    const before = cpuByPid(postgresPids(probe.postmasterPid));
    const self0 = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CHUNK / 20; i++) await Promise.all(Array.from({ length: 20 }, (_, j) => paid.call(keys[j % spread]!)));
    const pg = cpuSpent(before, cpuByPid(postgresPids(probe.postmasterPid)));
    const self = process.cpuUsage(self0);
    const per = (ms: number) => ((ms * 1000) / CHUNK).toFixed(0).padStart(5);
    const node = per((self.user + self.system) / 1000);
    console.log(
      `keys ${String(spread).padStart(2)}: postgres ${per(pg)} us/call, node ${node} us/call, wall ${per(performance.now() - started)} us/call`,
    );
  }
  await probe.close();
}
void main();
