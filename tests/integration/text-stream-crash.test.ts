import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { sweepExpiredHolds } from '@/server/domain/billing/sweep-expired-holds';
import { api, BASE, call, createTestKey, newIdempotencyKey } from '../helpers/api';
import { streamHeaders } from '../helpers/event-stream';
import { recordStatements } from '../helpers/sql-statements';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Output delivered is output paid for, through a crash too (issue 36 point 1): a streamed
// answer's hold is marked delivered, durably, before its first delta reaches the client, so a
// process that dies after it leaves a hold the sweeper captures (units kept, a usage event
// `stream_interrupted`, the concurrency slot freed). "The process dies" is simulated as the
// sweeper sees it: the hold's lease runs out while its request never settles it.

const TEXT = '/v1/text/generate';
const REPLY = 'Crashes happen between two words.';

const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_CRASH_KEY: 'sk-fake-crash-secret-0123456789' });
beforeEach(() => {
  fake.reset();
  fake.setReply(REPLY);
});
afterEach(() => vi.restoreAllMocks());

/** A key whose text.generate (2 units) goes to the fake, priced by the operator; its own provider name, as engines are cached. */
let providers = 0;
const pricedKey = () =>
  createTestKey({
    quota: 100,
    providers: {
      [`crash${++providers}`]: {
        type: 'openai',
        base_url: fake.baseUrl,
        api_key_env: 'WGS_PROVIDER_KEY_FAKE_CRASH_KEY',
        prices: { 'model-s': { input_per_mtok: 1000, output_per_mtok: 2000 } },
      },
    },
    operations: { 'text.generate': { engine: `crash${providers}:model-s`, units: 2 } },
  });

interface StreamEvent {
  event: string;
  data: { text?: string; error?: { code: string } };
}

/** The events of a stream, one at a time (comments skipped). */
function readEvents(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<StreamEvent | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const event = lines.find((line) => line.startsWith('event: '));
        if (event) return { event: event.slice(7), data: JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) };
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return undefined;
      buffer += decoder.decode(value, { stream: true });
    }
  };
  const rest = async () => {
    const events: string[] = [];
    for (let event = await next(); event; event = await next()) events.push(event.data.error?.code ?? event.event);
    return events;
  };
  return { next, rest };
}

async function openStream(key: string, input: string, idempotencyKey = newIdempotencyKey()) {
  const body = JSON.stringify({ input });
  const response = await api(new Request(`${BASE}${TEXT}`, { method: 'POST', headers: streamHeaders(key, idempotencyKey), body }));
  expect(response.status).toBe(200);
  return readEvents(response);
}

async function books(apiKeyId: string) {
  const { rows } = await getPool().query(
    `SELECT k.remaining_units, k.in_flight, k.cost_today::float8 AS cost_today,
            (SELECT json_agg(json_build_object('status', h.status, 'delivered', h.delivered_at IS NOT NULL) ORDER BY h.created_at)
               FROM unit_holds h WHERE h.api_key_id = k.id) AS holds
       FROM api_keys k WHERE k.id = $1`,
    [apiKeyId],
  );
  return rows[0] as { remaining_units: number; in_flight: number; cost_today: number; holds: { status: string; delivered: boolean }[] };
}

const usageEvents = (apiKeyId: string) => getPrisma().usageEvent.findMany({ where: { apiKeyId }, orderBy: { createdAt: 'asc' } });

/** The process died: its holds' leases run out with nobody to settle them, and the sweeper comes. */
async function dieAndSweep(apiKeyId: string): Promise<number> {
  await getPool().query(`UPDATE unit_holds SET lease_until = now() - interval '1 second' WHERE api_key_id = $1 AND status = 'held'`, [
    apiKeyId,
  ]);
  return sweepExpiredHolds(getSqlDb());
}

describe('a process that dies mid-stream', () => {
  it('after the first delta reached the client: the sweeper captures the hold once, and a late settle charges nothing more', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'stall', after: 1 }); // one word, then the provider hangs
    const input = 'Tell me something, then crash';
    const stream = await openStream(key, input);
    expect(await stream.next()).toEqual({ event: 'delta', data: { text: 'Crashes ' } });
    expect((await books(id)).holds).toEqual([{ status: 'held', delivered: true }]);

    expect(await dieAndSweep(id)).toBeGreaterThanOrEqual(1);
    const estimate = (Math.ceil(input.length / 4) * 1000 + Math.ceil('Crashes '.length / 4) * 2000) / 1e6;
    expect(await books(id)).toEqual({
      remaining_units: 98,
      in_flight: 0,
      cost_today: estimate,
      holds: [{ status: 'captured', delivered: true }],
    });
    const [event, ...others] = await usageEvents(id);
    expect(others).toEqual([]);
    expect(event).toMatchObject({ outcome: 'succeeded', units: 2, errorCode: 'stream_interrupted', usageEstimated: true });
    expect([event!.engine, event!.enginesTried, event!.providerCost?.toString()]).toEqual([
      `crash${providers}:model-s`,
      [`crash${providers}:model-s`],
      String(estimate),
    ]);
    await dieAndSweep(id); // a second sweep finds nothing to settle
    expect((await books(id)).remaining_units).toBe(98);

    // The request was not dead after all: it finishes, finds its hold settled and charges nothing
    // more; its output was delivered, so it ends output_interrupted (charged), never provider_unavailable.
    fake.resume();
    expect((await stream.rest()).at(-1)).toBe('output_interrupted');
    expect(await books(id)).toMatchObject({ remaining_units: 98, in_flight: 0, holds: [{ status: 'captured' }] });
    expect(await usageEvents(id)).toHaveLength(1);
  });

  it('before any delta: the sweeper returns the units and records the lost call, and the mark then refused writes no delta', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'stall', after: 0 });
    const stream = await openStream(key, 'Crash before the first word');
    await expect.poll(() => fake.callCount).toBe(1);
    expect((await books(id)).holds).toEqual([{ status: 'held', delivered: false }]);

    expect(await dieAndSweep(id)).toBeGreaterThanOrEqual(1);
    expect(await books(id)).toMatchObject({ remaining_units: 100, in_flight: 0, holds: [{ status: 'released', delivered: false }] });
    // The engine was called: the books say so, charging nothing, with the cause.
    const lost = { outcome: 'failed', units: 0, errorCode: 'request_lost', engine: `crash${providers}:model-s` };
    expect(await usageEvents(id)).toMatchObject([{ ...lost, enginesTried: [`crash${providers}:model-s`] }]);

    fake.resume(); // the provider's words come, but the hold is gone: none reaches the client
    expect(await stream.rest()).toEqual(['provider_unavailable']);
    expect(await books(id)).toMatchObject({ remaining_units: 100, in_flight: 0, holds: [{ status: 'released', delivered: false }] });
    expect(await usageEvents(id)).toMatchObject([lost]); // still one: the late abandon finds nothing to settle
  });
});

describe('the Idempotency-Key of a stream whose process died after its first delta', () => {
  it('is never taken over: 409 while leased, then a replay of what was delivered (streamed or JSON), never run or charged again', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'stall', after: 1 });
    const idempotencyKey = newIdempotencyKey();
    const input = 'Deliver a word, then die';
    const stream = await openStream(key, input, idempotencyKey);
    expect(await stream.next()).toEqual({ event: 'delta', data: { text: 'Crashes ' } });
    const retry = (accept?: string) => call(api, TEXT, { input }, { key, idempotencyKey, headers: accept ? { Accept: accept } : {} });
    expect((await retry()).json.error.code).toBe('idempotency_key_in_use');

    // The process is gone: the key's lease runs out, then the hold's, and the sweeper captures it.
    await getPool().query(`UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE api_key_id = $1`, [id]);
    await dieAndSweep(id);
    expect((await books(id)).remaining_units).toBe(98);
    const [event] = await usageEvents(id);
    expect([event!.outcome, event!.units, event!.errorCode]).toEqual(['succeeded', 2, 'stream_interrupted']);

    const json = await retry();
    expect(json.status, json.text).toBe(200);
    expect(json.headers.get('idempotent-replayed')).toBe('true');
    expect(json.json).toMatchObject({ id: event!.id, output: { text: 'Crashes ' }, usage: { charged_units: 2, remaining_units: 98 } });
    const streamed = await retry('text/event-stream');
    expect(streamed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(streamed.headers.get('idempotent-replayed')).toBe('true');
    const replayed = readEvents(new Response(streamed.text));
    expect(await replayed.next()).toEqual({ event: 'delta', data: { text: 'Crashes ' } });
    expect(await replayed.next()).toMatchObject({ event: 'error', data: { error: { code: 'output_interrupted' } } });
    expect(await replayed.next()).toBeUndefined();
    expect(fake.callCount, 'the engine is never called again').toBe(1);

    // The request that was not dead after all charges nothing more, and leaves the key's answer alone.
    fake.resume();
    expect((await stream.rest()).at(-1)).toBe('output_interrupted');
    expect((await retry()).json.output.text).toBe('Crashes ');
    expect(await books(id)).toMatchObject({ remaining_units: 98, in_flight: 0 });
    expect(await usageEvents(id)).toHaveLength(1);
  });
});

describe('the sweeper and holds their request settled', () => {
  it('never settles again a delivered hold its request captured (done, or a provider failure mid-stream)', async () => {
    const { key, id } = await pricedKey();
    expect((await (await openStream(key, 'Finish please')).rest()).at(-1)).toBe('done');
    fake.setMode({ kind: 'break', after: 2 });
    expect(await (await openStream(key, 'Break please')).rest()).toEqual(['delta', 'delta', 'output_interrupted']);
    const before = await books(id);
    expect(before).toMatchObject({ remaining_units: 96, in_flight: 0 });
    expect(before.holds).toEqual([
      { status: 'captured', delivered: true },
      { status: 'captured', delivered: true },
    ]);
    await getPool().query(`UPDATE unit_holds SET lease_until = now() - interval '1 second' WHERE api_key_id = $1`, [id]);
    await sweepExpiredHolds(getSqlDb());
    expect(await books(id)).toEqual(before);
    expect((await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode])).toEqual([
      ['succeeded', 2, null],
      ['succeeded', 2, 'provider_failed'],
    ]);
  });
});

describe('statements of a streamed call', () => {
  it('the rate point, claim and hold in one; the delivered mark before the first delta; then the capture', async () => {
    const { key } = await createTestKey({ quota: 10 });
    const recording = recordStatements();
    const stream = await openStream(key, 'Count my statements, local engine.');
    const first = await stream.next();
    expect(first?.event).toBe('delta');
    const beforeFirstDelta = recording.statements();
    expect((await stream.rest()).at(-1)).toBe('done');
    recording.stop();
    const statements = recording.statements();
    expect(beforeFirstDelta.at(-1)).toContain('SET delivered_at = now()');
    expect(statements, statements.join('\n---\n')).toHaveLength(3);
    expect(statements[0]).toContain('wgs_rate_take');
    expect(statements[0]).toContain('INSERT INTO unit_holds');
    expect(statements[1]).toContain('SET delivered_at = now()');
    expect(statements[2]).toContain('INSERT INTO usage_events');
  });
});
