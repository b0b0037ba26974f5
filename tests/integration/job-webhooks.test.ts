import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { jobEventSchema } from '@/server/contract/webhooks';
import { getPool, getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { listKeyDeliveries, resendDelivery, setKeyWebhook } from '@/server/domain/webhooks/manage-webhook';
import { queueDeliveries } from '@/server/domain/webhooks/webhook-queue';
import { startWorker, type RunningWorker } from '@/server/jobs/worker';
import { enableMetrics, type Metrics } from '@/server/observability/metrics';
import { api, call, createTestKey, type TestKey } from '../helpers/api';
import { startFakeVideoProvider, type FakeVideoProvider } from './support/jobs/fake-video-provider';
import { getJob, setQuickJobQueue, submitVideo } from './support/jobs/job-calls';
import { pollUntil } from './support/jobs/poll';

// Job webhooks end to end: a real worker delivers to a receiver on 127.0.0.1, every request is
// verified with the `standardwebhooks` package, a 500 (or a redirect) is retried with the same
// webhook-id on a short schedule, a retry survives the worker's restart, 410 disables the endpoint.
process.env.PROVIDER_MAX_RETRIES = '0';
process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS = '1,1,1';
process.env.JOB_CANCEL_CHECK_SECONDS = '0.2';
setQuickJobQueue();
resetConfigForTests();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; 200 once they are used up. */
  answers: { status: number; headers?: Record<string, string> }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Receiver['answers'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 200 };
      res.writeHead(answer.status, answer.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/wgs`,
    received,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies a received request as a customer would, with the standardwebhooks package; returns the event. */
function verified(secret: string, request: Received) {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  const event = new Webhook(secret).verify(request.body, headers);
  // The body is exactly the JobEvent of the OpenAPI document.
  return jobEventSchema.parse(event);
}

const received = (receiver: Receiver, count: number) =>
  pollUntil(`${count} webhook request(s)`, async () => (receiver.received.length >= count ? receiver.received.slice(0, count) : undefined));

async function deliveriesSettled(keyId: string) {
  return pollUntil('the delivery to settle', async () => {
    const [latest] = await listKeyDeliveries(getPrisma(), keyId);
    return latest && latest.status !== 'pending' ? latest : undefined;
  });
}

let provider: FakeVideoProvider;
let receiver: Receiver;
let metrics: Metrics;

/** wgs_webhook_attempts_total by outcome. */
async function attemptCounts(): Promise<Record<string, number>> {
  const { values } = await metrics.webhookAttempts.get();
  return Object.fromEntries(values.map((value) => [String(value.labels.outcome), value.value]));
}
let failing: FakeVideoProvider;

beforeAll(async () => {
  metrics = await enableMetrics();
  provider = await startFakeVideoProvider({ mode: 'hold', video: Buffer.from('never sent') });
  failing = await startFakeVideoProvider({ mode: 'fail' });
});
afterEach(async () => {
  await receiver?.close();
});
afterAll(async () => {
  await stopJobQueue();
  await provider?.close();
  await failing?.close();
});

async function keyWithWebhook(engine: unknown = 'local', providers: Record<string, unknown> = {}): Promise<TestKey & { secret: string }> {
  const key = await createTestKey({ quota: 100, providers, operations: { 'videos.generate': { engine, units: 20 } } });
  const { secret } = await setKeyWebhook(getPrisma(), CLI_ACTOR, key.id, receiver.url);
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  return { ...key, secret };
}

const holdingKey = () => {
  const name = `hold${randomBytes(4).toString('hex')}`;
  return keyWithWebhook(`${name}:fake-video`, { [name]: { type: 'openai', base_url: provider.baseUrl } });
};

describe('job webhooks with a running worker', () => {
  let worker: RunningWorker;
  beforeAll(async () => {
    worker = await startWorker({ concurrency: 2 });
  });
  afterAll(async () => {
    await worker?.stop();
  });

  it('POSTs job.succeeded, signed the Standard Webhooks way', async () => {
    receiver = await startReceiver();
    const key = await keyWithWebhook();
    const submitted = await submitVideo(key.key, { prompt: 'a heron in the reeds' });
    expect(submitted.status, submitted.text).toBe(202);
    const [request] = await received(receiver, 1);
    const event = verified(key.secret, request!);
    expect(event.type).toBe('job.succeeded');
    expect(event.data).toEqual({ job_id: submitted.json.job_id, status: 'succeeded' });
    expect(Date.parse(event.timestamp)).not.toBeNaN();
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,/);
    expect((await getJob(key.key, submitted.json.job_id)).json.status).toBe('succeeded');
    // Another secret does not verify it.
    expect(() => verified(`whsec_${randomBytes(32).toString('base64')}`, request!)).toThrow();
    const delivery = await deliveriesSettled(key.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_status: 200, event_type: 'job.succeeded' });
  });

  it('retries after a 500 and after a redirect (never followed) with the same webhook-id; job.failed', async () => {
    receiver = await startReceiver();
    receiver.answers.push({ status: 500 }, { status: 302, headers: { location: '/elsewhere' } });
    const before = await attemptCounts();
    const name = `fail${randomBytes(4).toString('hex')}`;
    const key = await keyWithWebhook(`${name}:fake-video`, { [name]: { type: 'openai', base_url: failing.baseUrl } });
    const submitted = await submitVideo(key.key, { prompt: 'a storm at sea' });
    const requests = await received(receiver, 3);
    const ids = requests.map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(1);
    for (const request of requests) {
      expect(verified(key.secret, request)).toMatchObject({
        type: 'job.failed',
        data: { job_id: submitted.json.job_id, status: 'failed' },
      });
      expect(request.path).toBe('/hooks/wgs');
    }
    // Each attempt is signed afresh over the same body.
    expect(new Set(requests.map((request) => request.body)).size).toBe(1);
    const delivery = await deliveriesSettled(key.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200, event_type: 'job.failed' });
    expect(receiver.received.some((request) => request.path === '/elsewhere')).toBe(false);
    // The two failed attempts are counted in the metrics, and the delivery.
    const after = await pollUntil('the delivery to be counted', async () => {
      const counts = await attemptCounts();
      return (counts.delivered ?? 0) > (before.delivered ?? 0) ? counts : undefined;
    });
    expect((after.retry ?? 0) - (before.retry ?? 0)).toBe(2);
    expect((after.delivered ?? 0) - (before.delivered ?? 0)).toBe(1);
  });

  it('waits out a Retry-After on a 503 when it is longer than the schedule', async () => {
    receiver = await startReceiver();
    receiver.answers.push({ status: 503, headers: { 'retry-after': '3' } });
    const key = await keyWithWebhook();
    await submitVideo(key.key, { prompt: 'a quiet harbour' });
    await received(receiver, 1);
    const waited = await pollUntil('the retry to be scheduled', async () => {
      const { rows } = await getPool().query<{ attempts: number; wait: number }>(
        `SELECT attempts, extract(epoch FROM next_attempt_at - updated_at)::float8 AS wait FROM webhook_deliveries WHERE api_key_id = $1`,
        [key.id],
      );
      return rows[0]?.attempts === 1 ? rows[0].wait : undefined;
    });
    // The schedule says about 1 s; the endpoint asked for 3.
    expect(waited).toBe(3);
    const [first, second] = await received(receiver, 2);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(await deliveriesSettled(key.id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('sends job.cancelled; a 410 Gone disables the endpoint (later events are not sent); Resend sends it again', async () => {
    receiver = await startReceiver();
    receiver.answers.push({ status: 410 });
    const key = await holdingKey();
    const submitted = await submitVideo(key.key, { prompt: 'a slow sunrise' });
    const jobId = submitted.json.job_id as string;
    const cancelled = await call(api, `/v1/jobs/${jobId}/cancel`, {}, { key: key.key });
    expect(cancelled.status, cancelled.text).toBe(200);
    const [request] = await received(receiver, 1);
    expect(verified(key.secret, request!)).toMatchObject({ type: 'job.cancelled', data: { job_id: jobId, status: 'cancelled' } });
    const delivery = await deliveriesSettled(key.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status: 410, next_attempt_at: null });
    await pollUntil('the 410 to be counted as failed', async () => ((await attemptCounts()).failed ? true : undefined));
    const row = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(row.webhookDisabledAt).not.toBeNull();

    const second = await submitVideo(key.key, { prompt: 'another sunrise' });
    const secondId = second.json.job_id as string;
    expect((await call(api, `/v1/jobs/${secondId}/cancel`, {}, { key: key.key })).status).toBe(200);
    expect((await listKeyDeliveries(getPrisma(), key.id)).map((d) => d.job_id)).toEqual([jobId]);

    // Set again (enabled), then Resend: the same webhook-id is delivered.
    const again = await setKeyWebhook(getPrisma(), CLI_ACTOR, key.id, receiver.url);
    await resendDelivery(getPrisma(), CLI_ACTOR, key.id, delivery.id);
    const [, resent] = await received(receiver, 2);
    expect(resent!.headers['webhook-id']).toBe(request!.headers['webhook-id']);
    expect(verified(again.secret, resent!).type).toBe('job.cancelled');
  });
});

describe("an endpoint that never answers (webhooks audit: two of them held every key's webhooks 15 s)", () => {
  it("holds up no other key's delivery: one poller waits on all four, another serves the next key while they still hang", async () => {
    const hanging: ServerResponse[] = [];
    let cut = 0;
    const blackHole = createServer((request, response) => {
      hanging.push(response);
      request.socket.once('close', () => (cut += 1));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    receiver = await startReceiver();
    let first: RunningWorker | undefined;
    let second: RunningWorker | undefined;
    try {
      const stalled = await keyWithWebhook();
      await setKeyWebhook(getPrisma(), CLI_ACTOR, stalled.id, `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}/hook`);
      const waiting = await keyWithWebhook();
      const delivery = async (apiKeyId: string, n: number) => {
        const id = `msg_${randomBytes(16).toString('hex')}`;
        await getPool().query(
          `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, next_attempt_at) VALUES ($1, $2, $3, 'job.succeeded', now())`,
          [id, apiKeyId, `job_hang${n}${randomBytes(10).toString('hex')}`],
        );
        return id;
      };
      const stalledIds = await Promise.all([1, 2, 3, 4].map((n) => delivery(stalled.id, n)));
      await queueDeliveries(stalledIds);
      // One poller alone when they are queued: it takes the four at once (one at a time before, it held three back 15 s each).
      first = await startWorker({ concurrency: 1 });
      await pollUntil('the four attempts to hang', async () => (hanging.length === 4 ? true : undefined));
      second = await startWorker({ concurrency: 1 });
      await queueDeliveries([await delivery(waiting.id, 5)]);
      await received(receiver, 1);
      expect(cut, 'no hanging attempt was cut off before the other key was served').toBe(0);
      expect(await deliveriesSettled(waiting.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    } finally {
      for (const response of hanging) response.destroy();
      blackHole.closeAllConnections();
      await new Promise<void>((resolve) => blackHole.close(() => resolve()));
      await first?.stop();
      await second?.stop();
    }
  });
});

describe('a retry survives a restart of the worker', () => {
  it('the attempt after a 500 is delivered by the next worker, with the same webhook-id', async () => {
    receiver = await startReceiver();
    receiver.answers.push({ status: 500 });
    const key = await holdingKey();
    const first = await startWorker({ concurrency: 1 });
    let second: RunningWorker | undefined;
    try {
      const submitted = await submitVideo(key.key, { prompt: 'rain on a window' });
      const jobId = submitted.json.job_id as string;
      expect((await call(api, `/v1/jobs/${jobId}/cancel`, {}, { key: key.key })).status).toBe(200);
      await received(receiver, 1);
      const pending = await pollUntil('the retry to be scheduled', async () => {
        const [latest] = await listKeyDeliveries(getPrisma(), key.id);
        return latest?.attempts === 1 ? latest : undefined;
      });
      expect(pending).toMatchObject({ status: 'pending', last_status: 500 });
      await first.stop();
      second = await startWorker({ concurrency: 1 });
      const [one, two] = await received(receiver, 2);
      expect(two!.headers['webhook-id']).toBe(one!.headers['webhook-id']);
      expect(verified(key.secret, two!)).toMatchObject({ type: 'job.cancelled', data: { job_id: jobId } });
      expect(await deliveriesSettled(key.id)).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});
