import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDatabaseUrl } from '../setup/test-database';
import { jobSchema } from '@/server/contract/jobs-and-uploads';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { serveSignedObject } from '@/server/http/serve-signed-object';
import { renderVideo } from '@/server/providers/local/video';
import { api, call, createTestKey, remainingUnits, type TestKey } from '../helpers/api';
import { startFakeVideoProvider, type FakeVideoProvider } from './support/jobs/fake-video-provider';
import { pollUntil } from './support/jobs/poll';
import { probeVideo } from './support/jobs/video-probe';
import { childEnv, killAllSpawned, REPO_ROOT, track } from './support/processes';

// A worker process killed with SIGKILL in the middle of a job: the job is not lost, a second
// worker process completes it, and its units are charged exactly once; the dead attempt's provider
// call is on the books as a lost one.

const QUEUE_ENV = {
  JOB_HEARTBEAT_SECONDS: '10',
  JOB_SUPERVISE_INTERVAL_SECONDS: '1',
  JOB_POLL_INTERVAL_SECONDS: '0.5',
  JOB_RETRY_DELAY_SECONDS: '0',
  JOB_RETRY_LIMIT: '3',
  PROVIDER_MAX_RETRIES: '0',
};
// The submitting side (this process) stamps the queue settings on the job; the workers use the same.
Object.assign(process.env, QUEUE_ENV);
resetConfigForTests();

let provider: FakeVideoProvider;
let key: TestKey;
const logs = new Map<ChildProcess, string>();

function startWorkerProcess(): ChildProcess {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', 'scripts/worker.ts'], {
      cwd: REPO_ROOT,
      env: childEnv({
        ...QUEUE_ENV,
        DATABASE_URL: testDatabaseUrl(),
        WGS_DATA_DIR: process.env.WGS_DATA_DIR!,
        WORKER_CONCURRENCY: '1',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  logs.set(child, '');
  const append = (chunk: Buffer) => logs.set(child, logs.get(child) + chunk.toString());
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  return child;
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

async function jobRow(jobId: string) {
  return getPrisma().job.findUniqueOrThrow({ where: { id: jobId } });
}

beforeAll(async () => {
  const video = await renderVideo({ prompt: 'provider stand-in output' });
  provider = await startFakeVideoProvider({ mode: 'hold', video: video.bytes });
  const name = `slow${randomBytes(4).toString('hex')}`;
  key = await createTestKey({
    quota: 100,
    providers: { [name]: { type: 'openai', base_url: provider.baseUrl } },
    operations: { 'videos.generate': { engine: `${name}:fake-video`, units: 30 } },
  });
});

afterAll(async () => {
  killAllSpawned();
  await stopJobQueue();
  await provider?.close();
});

it('a second worker completes the job of a SIGKILLed worker; units are charged exactly once', async () => {
  const submitted = await call(api, '/v1/videos/generate', { prompt: 'a slow render' }, { key: key.key });
  expect(submitted.status, submitted.text).toBe(202);
  const jobId = submitted.json.job_id as string;
  expect(await remainingUnits(key.id)).toBe(70);

  // Worker A takes the job and is inside the provider call (the provider keeps it in progress).
  const first = startWorkerProcess();
  await pollUntil('worker A to start the job at the provider', async () => {
    const row = await jobRow(jobId);
    return row.status === 'running' && provider.requests.some((r) => r.startsWith('POST ')) ? row : undefined;
  }).catch((error) => {
    throw new Error(`${error}\nworker A:\n${logs.get(first)}`);
  });
  expect((await jobRow(jobId)).attempts).toBe(1);

  first.kill('SIGKILL');
  await exited(first);
  expect(first.signalCode).toBe('SIGKILL');
  expect((await jobRow(jobId)).status).toBe('running');

  // Worker B: the queue gives it the dead worker's job once A's heartbeat is missed.
  const second = startWorkerProcess();
  await pollUntil(
    'worker B to retry the job',
    async () => {
      const row = await jobRow(jobId);
      return row.attempts >= 2 ? row : undefined;
    },
    120_000,
  ).catch((error) => {
    throw new Error(`${error}\nworker B:\n${logs.get(second)}`);
  });
  // A stop signal twice at once (one Ctrl-C, from the terminal and from npm) is one stop: the job finishes, then the worker.
  second.kill('SIGTERM');
  second.kill('SIGINT');
  provider.release();

  const done = await pollUntil(
    'the job to finish',
    async () => {
      const result = await call(api, `/v1/jobs/${jobId}`, undefined, { key: key.key });
      return ['succeeded', 'failed'].includes(result.json?.status) ? result : undefined;
    },
    120_000,
  ).catch((error) => {
    throw new Error(`${error}\nworker B:\n${logs.get(second)}`);
  });
  const view = jobSchema.parse(done.json);
  expect(view.status, `${done.text}\nworker B:\n${logs.get(second)}`).toBe('succeeded');
  expect(view.usage.charged_units).toBe(30);

  const response = await serveSignedObject(new Request(view.result!.url));
  expect(response.status).toBe(200);
  expect(probeVideo(Buffer.from(await response.arrayBuffer())).codec).toBe('h264');

  // Exactly once: one captured hold, one succeeded usage event, the quota down by one job's units.
  const row = await jobRow(jobId);
  expect(row.attempts).toBe(2);
  expect(provider.requests.filter((r) => r.startsWith('POST ')).length).toBe(2);
  const holds = await getPool().query('SELECT status, units FROM unit_holds WHERE api_key_id = $1', [key.id]);
  expect(holds.rows).toEqual([{ status: 'captured', units: 30 }]);
  // Worker A's attempt called the provider too: it is on the books as lost (0 units), named by the job.
  const usage = await getPool().query(
    'SELECT outcome, units, job_id, error_code, engines_tried, hold_id IS NULL AS no_hold FROM usage_events WHERE api_key_id = $1 ORDER BY created_at',
    [key.id],
  );
  const engines = usage.rows[0]?.engines_tried;
  expect(usage.rows).toEqual([
    { outcome: 'failed', units: 0, job_id: jobId, error_code: 'request_lost', engines_tried: engines, no_hold: true },
    { outcome: 'succeeded', units: 30, job_id: jobId, error_code: null, engines_tried: engines, no_hold: false },
  ]);
  expect(engines).toHaveLength(1);
  expect(await remainingUnits(key.id)).toBe(70);

  await exited(second);
  expect(second.exitCode, logs.get(second)).toBe(0);
}, 240_000);
