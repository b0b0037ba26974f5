import { afterAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { holdUnits } from '@/server/domain/billing/unit-holds';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { CLI_ACTOR } from '@/server/domain/actor';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { budgetPackagesWithoutPrice } from '@/server/domain/providers/budget-prices';
import { startWorker } from '@/server/jobs/worker';
import { createTestKey, expectEnvelope, remainingUnits } from '../helpers/api';
import { getJob, setQuickJobQueue, submitVideo } from './support/jobs/job-calls';
import { pollUntil } from './support/jobs/poll';
import { operatorCaller } from './trpc/helpers';

// Budgets see every job: a key at its daily provider-cost budget cannot start a job, queued or
// new; a package with a budget cannot name an engine without a known price, and stored ones that
// do are listed for the overview's warning.

process.env.PROVIDER_MAX_RETRIES = '0';
setQuickJobQueue();
resetConfigForTests();
afterAll(async () => {
  await stopJobQueue();
});

const BUDGET = 0.5;

/** Spends the key's budget for today, as the calls it settled would have. */
const spendBudget = (apiKeyId: string) =>
  getPool().query(`UPDATE api_keys SET cost_day = (now() AT TIME ZONE 'UTC')::date, cost_today = $2 WHERE id = $1`, [apiKeyId, BUDGET]);

describe('a key at its daily budget', () => {
  it('starts none of its 50 queued jobs (each fails with the budget reason, units returned) and submits no new one', async () => {
    const key = await createTestKey({
      quota: 1000,
      maxProviderCostPerDay: BUDGET,
      operations: { 'videos.generate': { engine: 'local', units: 10, input_uploads: false } },
    });
    const jobIds: string[] = [];
    for (let i = 0; i < 50; i++) {
      const submitted = await submitVideo(key.key, { prompt: `kite ${i}` });
      expect(submitted.status, submitted.text).toBe(202);
      jobIds.push(submitted.json.job_id as string);
    }
    expect(await remainingUnits(key.id)).toBe(500);
    await spendBudget(key.id); // the day's cost reached the budget while the jobs waited in the queue

    const worker = await startWorker({ concurrency: 4 });
    try {
      await pollUntil(
        'every job to fail',
        async () => {
          const { rows } = await getPool().query<{ n: number }>(
            `SELECT count(*)::int AS n FROM jobs WHERE api_key_id = $1 AND status = 'failed'`,
            [key.id],
          );
          return rows[0]!.n === 50 ? true : undefined;
        },
        120_000,
      );
    } finally {
      await worker.stop();
    }
    const job = (await getJob(key.key, jobIds[0]!)).json;
    expect(job).toMatchObject({ status: 'failed', usage: { charged_units: 0 }, error: { code: 'rate_limited' } });
    expect(job.error.message).toContain('budget');
    const { rows } = await getPool().query<{ attempts: number }>('SELECT max(attempts)::int AS attempts FROM jobs WHERE api_key_id = $1', [
      key.id,
    ]);
    expect(rows[0]!.attempts, 'no job was started').toBe(0);
    expect(await remainingUnits(key.id)).toBe(1000);

    const refused = await submitVideo(key.key, { prompt: 'one more' });
    expectEnvelope(refused, 429, 'rate_limited');
    expect(refused.json.error.details).toEqual({ reason: 'budget' });
  }, 180_000);
});

describe('the hold-time check counts the expected cost of queued jobs', () => {
  it("adds each held job's expected cost (its engine's recent jobs) to the day's: the job past the budget is refused", async () => {
    const name = `queued${Date.now() % 1_000_000}`;
    const key = await createTestKey({
      quota: 1000,
      maxProviderCostPerDay: 1,
      providers: { [name]: { type: 'fal', base_url: 'https://fal.example.com', prices: { 'luma-dream-machine': { per_second: 0.1 } } } },
      operations: { 'videos.generate': { engine: `${name}:luma-dream-machine`, units: 10, input_uploads: false } },
    });
    const apiKey = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } });
    // One earlier job on this engine cost 0.3: each new one is expected to cost as much.
    await getPrisma().usageEvent.create({
      data: {
        apiKeyId: key.id,
        packageVersionId: apiKey.packageVersionId,
        operation: 'videos.generate',
        engine: `${name}:luma-dream-machine`,
        outcome: 'succeeded',
        units: 10,
        requestId: 'req_earlier',
        jobId: 'job_earlier',
        durationMs: 1,
        providerCost: '0.3',
      },
    });
    for (let i = 0; i < 4; i++) expect((await submitVideo(key.key, { prompt: `queued ${i}` })).status).toBe(202); // 0, 0.3, 0.6, 0.9 < 1
    const refused = await submitVideo(key.key, { prompt: 'one too many' });
    expectEnvelope(refused, 429, 'rate_limited');
    expect(refused.json.error.details).toEqual({ reason: 'budget' });
    expect(await remainingUnits(key.id)).toBe(960);
  });
});

describe('a package with a budget needs a price for every engine', () => {
  const priced = (prices?: Record<string, unknown>, engine = 'shop:model-x') =>
    createTestKey({
      maxProviderCostPerDay: 1,
      providers: { shop: { type: 'openai-compatible', base_url: 'https://llm.example.com/v1', ...(prices ? { prices } : {}) } },
      operations: { 'text.generate': { engine, units: 1 }, 'images.generate': { engine: 'local', units: 1 } },
    });

  it('is refused with one line naming the engine and the missing price', async () => {
    await expect(priced()).rejects.toThrow(
      'max_provider_cost_per_day needs a price for every engine: shop:model-x (text.generate) has none, so its cost can be neither known nor estimated; set providers.shop.prices["model-x"].output_per_mtok',
    );
  });

  it("is saved with the operator's price, or a model the price table knows", async () => {
    await expect(priced({ 'model-x': { input_per_mtok: 1, output_per_mtok: 2 } })).resolves.toBeDefined();
    const known = await createTestKey({
      maxProviderCostPerDay: 1,
      providers: { known: { type: 'openai', base_url: 'https://api.openai.com/v1' } },
      operations: { 'text.generate': { engine: 'known:gpt-4o-mini', units: 1 } },
    });
    expect(known.id).toBeDefined();
  });

  it("a provider's prices cannot be taken from under a stored budget: packages apply and the dashboard's provider form refuse", async () => {
    const name = `budgeted${Date.now() % 1_000_000}`;
    const entry = { type: 'openai-compatible', base_url: 'https://llm.example.com/v1' };
    const key = await createTestKey({
      maxProviderCostPerDay: 1,
      providers: { [name]: { ...entry, prices: { 'model-z': { input_per_mtok: 1, output_per_mtok: 2 } } } },
      operations: { 'text.generate': { engine: `${name}:model-z`, units: 1 } },
    });
    const why = `package "${key.slug}" has max_provider_cost_per_day and sells ${name}:model-z (text.generate): without providers.${name}.prices["model-z"].output_per_mtok its cost can be neither known nor estimated`;
    const other = { slug: `${name}-other`, name: 'Other', quota_units: 1, limits: { requests_per_minute: 1, concurrency: 1 } };
    const file = { providers: { [name]: entry }, packages: [{ ...other, operations: { 'text.generate': { engine: 'local', units: 1 } } }] };
    await expect(applyPackages(getPrisma(), CLI_ACTOR, parsePackagesFile(file))).rejects.toThrow(why);
    await operatorCaller(); // the first operator is an owner
    const { caller } = await operatorCaller('admin');
    await expect(caller.providers.save({ name, mode: 'update', entry })).rejects.toThrow(why);
    const stored = await getPrisma().provider.findUniqueOrThrow({ where: { name } });
    expect(stored.prices).toEqual({ 'model-z': { input_per_mtok: 1, output_per_mtok: 2 } });
    // Another price of the same model keeps it priced.
    await caller.providers.save({
      name,
      mode: 'update',
      entry: { ...entry, prices: { 'model-z': { input_per_mtok: 2, output_per_mtok: 3 } } },
    });
  });

  it('a package stored before the rule is listed for the overview', async () => {
    const key = await createTestKey({
      providers: { legacy: { type: 'openai-compatible', base_url: 'https://llm.example.com/v1' } },
      operations: { 'text.generate': { engine: 'legacy:model-y', units: 1 } },
    });
    expect((await budgetPackagesWithoutPrice(getPrisma())).map((p) => p.slug)).not.toContain(key.slug);
    await getPool().query(
      `UPDATE package_versions SET max_provider_cost_per_day = 1 WHERE id = (SELECT package_version_id FROM api_keys WHERE id = $1)`,
      [key.id],
    );
    const listed = (await budgetPackagesWithoutPrice(getPrisma())).find((p) => p.slug === key.slug);
    const expected = [
      { operation: 'text.generate', engine: 'legacy:model-y', missing: 'providers.legacy.prices["model-y"].output_per_mtok' },
    ];
    expect(listed?.unpriced).toEqual(expected);
    await operatorCaller(); // the first operator is an owner
    const { caller } = await operatorCaller('viewer');
    expect((await caller.margin.unpricedBudgets()).find((p) => p.slug === key.slug)?.unpriced).toEqual(expected);
  });
});

describe("the expected cost of held jobs is read under the key's row lock", () => {
  it('a request waiting on the lock while a job is held judges the budget with that job counted', async () => {
    const key = await createTestKey({ quota: 1000, maxProviderCostPerDay: BUDGET });
    await getPool().query(`UPDATE api_keys SET cost_day = (now() AT TIME ZONE 'UTC')::date, cost_today = 0.3 WHERE id = $1`, [key.id]);
    const hold = (expectedCost: string | null) =>
      holdUnits(
        getSqlDb(),
        {
          apiKeyId: key.id,
          units: 10,
          operation: expectedCost ? 'videos.generate' : 'text.generate',
          requestId: `req_lock_${expectedCost ?? 'text'}`,
          concurrency: 10,
          leaseSeconds: 300,
          budget: String(BUDGET),
          expectedCost,
        },
        null,
      );
    // Another transaction holds the key's row: the job's hold, then the request's, wait behind it, in that order.
    const blocker = await getPool().connect();
    const waiting = async (count: number) =>
      pollUntil(
        `${count} statements waiting on the key's row`,
        async () => {
          const { rows } = await getPool().query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n >= count ? true : undefined;
        },
        20_000,
      );
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM api_keys WHERE id = $1 FOR UPDATE', [key.id]);
      const job = hold('0.3'); // 0.3 spent + 0.3 expected: the budget of 0.5 is reached once this job is held
      await waiting(1);
      const request = hold(null).then(
        () => 'held',
        (error: unknown) => (error as { details?: unknown }).details,
      );
      await waiting(2);
      await blocker.query('COMMIT');
      await expect(job).resolves.toMatchObject({ remainingUnits: 990 });
      expect(await request).toEqual({ reason: 'budget' });
    } finally {
      blocker.release();
    }
    expect(await remainingUnits(key.id)).toBe(990);
  });
});
