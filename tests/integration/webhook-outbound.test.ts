import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerDns, restoreDns } from '../helpers/dns-answers';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import type { ApiError } from '@/server/domain/errors';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { deliverWebhook } from '@/server/domain/webhooks/deliver-webhook';
import { listKeyDeliveries, resendDelivery, setKeyWebhook } from '@/server/domain/webhooks/manage-webhook';
import { allowProviderPrivateOrigin } from '@/server/providers/outbound/provider-door';
import { keyOnFreshPackage, portalSignIn } from './portal/portal-helpers';
import { expectTrpcError, operatorCaller } from './trpc/helpers';

// Webhooks on the outbound side, in process with the real database and queue: a delivery to an
// origin a provider's base_url opened is refused (the providers' allowance is theirs alone), what
// a delivery records names no resolved address (also for errors recorded before this version),
// `localhost.` is refused when saved, and resends are limited per key whoever asks.

let receiver: Server;
let port: number;
let hits = 0;
const answers: Record<string, string> = {};

beforeAll(async () => {
  receiver = createServer((request, response) => {
    hits += 1;
    request.resume().on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  // A public name whose DNS answer is this machine, as a provider's internal host might be.
  answerDns(answers);
});
afterEach(() => {
  delete process.env.WEBHOOK_RESENDS_PER_MINUTE;
  resetConfigForTests();
});
afterAll(async () => {
  restoreDns();
  receiver.close();
  await stopJobQueue();
});

async function pendingDelivery(apiKeyId: string): Promise<string> {
  const id = `msg_${apiKeyId.replace(/-/g, '')}`;
  await getPool().query(
    `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, next_attempt_at)
     VALUES ($1, $2, $3, 'job.succeeded', now())`,
    [id, apiKeyId, `job_${apiKeyId.replace(/-/g, '').slice(0, 24)}`],
  );
  return id;
}

describe('a delivery to an origin a provider opened', () => {
  it("is refused: the provider's allowance is not the webhook's; the record says 'private or reserved address' and no address", async () => {
    const origin = `https://llm.example.com:${port}`;
    answers['llm.example.com'] = '127.0.0.1';
    allowProviderPrivateOrigin('provider:internal-llm', origin);
    try {
      const key = await keyOnFreshPackage('hookorigin');
      // https and a public name: the save check passes, as it would for any customer.
      await setKeyWebhook(getPrisma(), CLI_ACTOR, key.id, `${origin}/hook`);
      const deliveryId = await pendingDelivery(key.id);
      hits = 0;
      expect(await deliverWebhook(getSqlDb(), deliveryId)).toBe('retry');
      expect(hits).toBe(0);
      const [delivery] = await listKeyDeliveries(getPrisma(), key.id);
      expect(delivery).toMatchObject({ id: deliveryId, attempts: 1, last_status: null });
      expect(delivery!.last_error).toBe('refused: llm.example.com is a private or reserved address');
      expect(JSON.stringify(await listKeyDeliveries(getPrisma(), key.id))).not.toContain('127.0.0.1');
    } finally {
      allowProviderPrivateOrigin('provider:internal-llm', null);
    }
  });

  it("to a private URL saved while private networks were allowed: recorded without the operator's setting, which the portal shows the buyer", async () => {
    const key = await keyOnFreshPackage('hookprivate');
    await setKeyWebhook(getPrisma(), CLI_ACTOR, key.id, 'https://hooks.example.com/wgs');
    await getPool().query('UPDATE api_keys SET webhook_url = $1 WHERE id = $2', [`https://127.0.0.1:${port}/hook`, key.id]);
    const deliveryId = await pendingDelivery(key.id);
    hits = 0;
    expect(await deliverWebhook(getSqlDb(), deliveryId)).toBe('retry');
    expect(hits).toBe(0);
    const [delivery] = await listKeyDeliveries(getPrisma(), key.id);
    expect(delivery!.last_error).toBe('the endpoint URL must name a public host: 127.0.0.1 is a private or reserved address');
  });
});

describe('saving an endpoint', () => {
  it('refuses localhost. and its kin with a validation error naming the host; a public name is taken', async () => {
    const { caller } = await operatorCaller();
    const key = await keyOnFreshPackage('hooksave');
    for (const url of ['https://localhost./hook', 'https://LOCALHOST/hook', 'https://0x7f.1/hook', 'https://hooks.internal/hook']) {
      const error = await expectTrpcError(caller.keys.setWebhook({ id: key.id, url }), 'UNPROCESSABLE_CONTENT', 'validation_error');
      expect(error.message, url).toMatch(/^the webhook URL must name a public host: /);
    }
    expect((await caller.keys.webhook({ id: key.id })).url).toBeNull();
    await caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/wgs' });
  });
});

describe('resends', () => {
  it("are limited per key: the operator's and the buyer's count together; past the limit 429 with Retry-After, nothing changed", async () => {
    process.env.WEBHOOK_RESENDS_PER_MINUTE = '3';
    resetConfigForTests();
    const { caller } = await operatorCaller();
    const key = await keyOnFreshPackage('hookresend');
    await caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/wgs' });
    const deliveryId = await pendingDelivery(key.id);
    const portal = (await portalSignIn(key.secret)).caller;

    await caller.keys.resendDelivery({ id: key.id, deliveryId });
    await portal.resendDelivery({ deliveryId });
    await caller.keys.resendDelivery({ id: key.id, deliveryId });
    await getPool().query(`UPDATE webhook_deliveries SET status = 'failed', attempts = 8 WHERE id = $1`, [deliveryId]);
    // Each call starts when the loop reaches it: two started together, the second could be refused
    // before anything awaited it, an unhandled rejection that failed the run (CI, b2f7529).
    for (const resend of [() => portal.resendDelivery({ deliveryId }), () => caller.keys.resendDelivery({ id: key.id, deliveryId })]) {
      const error = await expectTrpcError(resend(), 'TOO_MANY_REQUESTS', 'rate_limited');
      const retryAfter = (error.cause as ApiError).retryAfter!;
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    const [delivery] = await listKeyDeliveries(getPrisma(), key.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 8 });

    // Another key's resends are its own.
    const other = await keyOnFreshPackage('hookresend');
    await caller.keys.setWebhook({ id: other.id, url: 'https://hooks.example.com/wgs' });
    await caller.keys.resendDelivery({ id: other.id, deliveryId: await pendingDelivery(other.id) });
  });
});

describe('a resend after a failed attempt', () => {
  it("leaves the retry that attempt scheduled nothing to do: its round was replaced (webhooks audit: it POSTed in the new round's wait)", async () => {
    process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS = '1.5,1.5,1.5'; // within the claim's 2 s of slack: any retry is due at once
    resetConfigForTests();
    try {
      answers['hooks-down.example.com'] = '127.0.0.1'; // refused as private: a failed attempt, no request sent
      const key = await keyOnFreshPackage('hookround');
      await setKeyWebhook(getPrisma(), CLI_ACTOR, key.id, 'https://hooks-down.example.com/wgs');
      const deliveryId = await pendingDelivery(key.id);
      const dueOf = async () =>
        (await getPool().query<{ due: string }>('SELECT next_attempt_at::text AS due FROM webhook_deliveries WHERE id = $1', [deliveryId]))
          .rows[0]!.due;
      expect(await deliverWebhook(getSqlDb(), deliveryId)).toBe('retry');
      const replacedRound = await dueOf();
      await resendDelivery(getPrisma(), CLI_ACTOR, key.id, deliveryId);
      expect(await deliverWebhook(getSqlDb(), deliveryId)).toBe('retry'); // the resend's first attempt
      const round = await dueOf();
      expect(round).not.toBe(replacedRound);
      expect(await deliverWebhook(getSqlDb(), deliveryId, replacedRound)).toBe('not_due');
      expect((await listKeyDeliveries(getPrisma(), key.id))[0]).toMatchObject({ attempts: 1 });
      expect(await deliverWebhook(getSqlDb(), deliveryId, round)).toBe('retry');
      expect((await listKeyDeliveries(getPrisma(), key.id))[0]).toMatchObject({ attempts: 2 });
      // The retry is queued for its time, not rounded up to the next whole second (it came up to 1 s late).
      const { rows } = await getPool().query<{ early_ms: number }>(
        `SELECT extract(epoch FROM (d.next_attempt_at - j.start_after)) * 1000 AS early_ms
           FROM webhook_deliveries d JOIN pgboss.job j ON j.name = 'job-webhooks' AND j.data->>'due' = d.next_attempt_at::text
          WHERE d.id = $1`,
        [deliveryId],
      );
      expect(rows).toHaveLength(1);
      expect(Math.abs(Number(rows[0]!.early_ms))).toBeLessThan(100);
    } finally {
      delete process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS;
    }
  });
});

describe('errors recorded before this version', () => {
  it('lose the addresses they named when the migration runs', async () => {
    const key = await keyOnFreshPackage('hookold');
    const before = [
      'refused: hooks.example.com (10.0.0.5) is a private address, and nothing allows one at this origin',
      'refused: meta.example.com (169.254.169.254) is a cloud metadata or link-local address',
      'connect ECONNREFUSED 10.0.0.5:443',
      'HTTP 500',
      'no complete answer within 15 s',
    ];
    for (const [index, error] of before.entries()) {
      await getPool().query(
        `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, status, attempts, last_error)
         VALUES ($1, $2, $3, 'job.failed', 'failed', 8, $4)`,
        [`msg_old${index}${key.id.replace(/-/g, '').slice(5)}`, key.id, `job_${index}${key.id.replace(/-/g, '').slice(0, 23)}`, error],
      );
    }
    const migration = join(import.meta.dirname, '../../prisma/migrations/20261202300000_webhook_errors_without_addresses/migration.sql');
    await getPool().query(readFileSync(migration, 'utf8'));
    const after = (await listKeyDeliveries(getPrisma(), key.id)).map((delivery) => delivery.last_error).sort();
    expect(after).toEqual(
      [
        'refused: hooks.example.com is a private or reserved address',
        'refused: meta.example.com is a private or reserved address that is never reached (link-local or cloud metadata)',
        'the attempt failed without an answer (the details an earlier version recorded are not kept)',
        'HTTP 500',
        'no complete answer within 15 s',
      ].sort(),
    );
  });
});
