import { beforeEach, describe, expect, it } from 'vitest';
import { codeGenerateResponse, textGenerateResponse } from '@/server/contract/generation';
import { resetConfigForTests } from '@/server/config';
import { getPrisma, getSqlDb } from '@/server/db/client';
import {
  api,
  call,
  createTestKey,
  expectEnvelope,
  expectNothingShown,
  newIdempotencyKey,
  remainingUnits,
  type CallResult,
} from '../helpers/api';
import { openStream } from '../helpers/event-stream';
import { marginReport } from '@/server/domain/reports/margin';
import { resolveTimeRange } from '@/server/domain/reports/time-range';
import { FAKE_ERROR_TEXT, wordsOf } from '../../fakes/fake-openai';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// POST /v1/text/generate with Accept: text/event-stream: delta events, one done event charged
// once after the capture, an error event charging nothing for a provider that fails before the
// first piece, a disconnect after the first delta charged in full and one before it not, the
// provider cost of both recorded, replays and 409s with the same Idempotency-Key. Every other way a
// stream ends after its first delta (charged, output_interrupted): text-stream-endings.test.ts.

const TEXT = '/v1/text/generate';
const SECRET = 'sk-fake-stream-secret-0123456789';
const REPLY = 'Streams arrive one word at a time, then the result.';

process.env.PROVIDER_MAX_RETRIES = '2';
resetConfigForTests();
const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_STREAM_KEY: SECRET });
beforeEach(() => {
  fake.reset();
  fake.setReply(REPLY);
});

/** A key whose text.generate goes to the fake (2 units), or to the fake then local. */
const providerKey = (engine: string | string[] = 'fake:model-s', quota = 100) =>
  createTestKey({
    quota,
    providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_STREAM_KEY' } },
    operations: { 'text.generate': { engine, units: 2, output_formats: ['text', 'json'] } },
  });

function expectEventStreamHeaders(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('x-accel-buffering')).toBe('no');
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
}

const usageEvents = (apiKeyId: string) => getPrisma().usageEvent.findMany({ where: { apiKeyId }, orderBy: { createdAt: 'asc' } });

describe('a stream read event by event', () => {
  it('through a provider: a delta per piece, then one done charged once', async () => {
    const { key, id } = await providerKey();
    const stream = await openStream(key, { input: 'Tell me about streams' });
    expectEventStreamHeaders(stream.response);
    expect(stream.response.headers.get('ratelimit-limit')).toBe('10000');
    const deltas: string[] = [];
    let event = await stream.next();
    expect(stream.comments[0], 'a comment opens the stream').toBe(': keep-alive');
    while (event?.event === 'delta') {
      expect(Object.keys(event.data)).toEqual(['text']);
      deltas.push(event.data.text);
      event = await stream.next();
    }
    expect(deltas).toEqual(wordsOf(REPLY));
    expect(event?.event).toBe('done');
    const done = textGenerateResponse.parse(event!.data);
    expect(done.output.text).toBe(REPLY);
    expect(done.usage).toEqual({ charged_units: 2, remaining_units: 98 });
    expect(await stream.next(), 'done is the last event').toBeUndefined();

    expect((fake.calls[0]!.body as { stream?: boolean }).stream).toBe(true);
    expect(fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(98);
    const events = await usageEvents(id);
    expect(events.map((e) => [e.outcome, e.units, e.id])).toEqual([['succeeded', 2, done.id]]);
    expect(events[0]!.engine).toBe('fake:model-s');
  });

  it('the local engine streams in word-sized pieces, the same result as its JSON answer', async () => {
    const { key, id } = await createTestKey({ quota: 10 });
    const body = { input: 'Event streams carry text as it is made. Each piece is small.', output_format: 'text' };
    const events = await (await openStream(key, body)).rest();
    const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
    expect(events.map((e) => e.event)).toEqual([...deltas.map(() => 'delta'), 'done']);
    expect(deltas.length).toBeGreaterThan(5);
    for (const piece of deltas) expect(piece.trim()).not.toMatch(/\s/);
    const done = textGenerateResponse.parse(events.at(-1)!.data);
    expect(deltas.join('')).toBe(done.output.text);
    expect(done.usage).toEqual({ charged_units: 1, remaining_units: 9 });

    const json = await call(api, TEXT, body, { key });
    expect(json.status).toBe(200);
    expect(json.json.output).toEqual(done.output);
    expect(Object.keys(json.json)).toEqual(Object.keys(done));
    expect(await remainingUnits(id)).toBe(8);
  });

  it('retries and falls back before the first piece: a failing provider, then local', async () => {
    const { key, id } = await providerKey(['fake:model-s', 'local']);
    fake.setMode({ kind: 'status', status: 503 });
    const events = await (await openStream(key, { input: 'Fall back please' })).rest();
    expect(fake.callCount).toBe(3); // the first attempt and PROVIDER_MAX_RETRIES more
    expect(events.at(-1)!.event).toBe('done');
    expect(events.at(-1)!.data.output.text).toContain('Local engine');
    expect(await remainingUnits(id)).toBe(98);
    expect((await usageEvents(id)).map((e) => [e.engine, e.enginesTried])).toEqual([['local', ['fake:model-s', 'local']]]);
  });
});

describe('a stream that fails before its first delta charges nothing', () => {
  it('a provider failing before any piece: retried, then event error provider_unavailable, the key free again', async () => {
    const { key, id } = await providerKey();
    fake.setMode({ kind: 'break', after: 0 });
    const idempotencyKey = newIdempotencyKey();
    const stream = await openStream(key, { input: 'Break please' }, idempotencyKey);
    const events = await stream.rest();
    expect(events.map((e) => e.event)).toEqual(['error']);
    const error = events[0]!;
    expect(Object.keys(error.data)).toEqual(['error']);
    expect(error.data.error.code).toBe('provider_unavailable');
    expect(error.data.error.message).toContain('No units were charged');
    expect(error.data.error.request_id).toBe(stream.response.headers.get('x-request-id'));
    expectNothingShown(error.raw, [FAKE_ERROR_TEXT, SECRET, 'model-s'], fake.port);
    expect(fake.callCount).toBe(3); // the first attempt and PROVIDER_MAX_RETRIES more: nothing had reached the client
    expect(await remainingUnits(id)).toBe(100);
    expect((await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode])).toEqual([['failed', 0, 'provider_unavailable']]);

    fake.setMode({ kind: 'ok' });
    const retry = await call(api, TEXT, { input: 'Break please' }, { key, idempotencyKey });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.usage).toEqual({ charged_units: 2, remaining_units: 98 });
  });

  it('a provider whose stream is cut once its first (empty) chunk was read is retried too (outside audit: tried once, as a malformed answer)', async () => {
    const { key, id } = await providerKey();
    fake.setMode({ kind: 'break', after: 0, pauseMs: 100 });
    const events = await (await openStream(key, { input: 'Break later please' })).rest();
    expect(events.map((e) => e.data.error?.code)).toEqual(['provider_unavailable']);
    expect(fake.callCount).toBe(3); // the first attempt and PROVIDER_MAX_RETRIES (2, above) more
    expect(await remainingUnits(id)).toBe(100);
  });
});

describe('output delivered is output paid for', () => {
  /**
   * A key whose fake model has the operator's prices (1,000 in and 2,000 out per million tokens)
   * and units priced at 0.01; its own provider name, as engines (and their prices) are cached a few seconds.
   */
  let priced = 0;
  const pricedKey = () =>
    createTestKey({
      quota: 100,
      unitPrice: 0.01,
      providers: {
        [`priced${++priced}`]: {
          type: 'openai',
          base_url: fake.baseUrl,
          api_key_env: 'WGS_PROVIDER_KEY_FAKE_STREAM_KEY',
          prices: { 'model-s': { input_per_mtok: 1000, output_per_mtok: 2000 } },
        },
      },
      operations: { 'text.generate': { engine: `priced${priced}:model-s`, units: 2 } },
    });
  const todaysMargin = (apiKeyId: string) => marginReport(getSqlDb(), { range: resolveTimeRange({ range: '24h' }), apiKeyId });

  it('a client gone after the first delta: the call runs to its end, charged once, and a replay answers the finished call', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'stall', after: 1 });
    const idempotencyKey = newIdempotencyKey();
    const body = { input: 'Read one word and leave' };
    const stream = await openStream(key, body, idempotencyKey);
    expect((await stream.next())?.event).toBe('delta');
    await stream.cancel();
    fake.resume(); // the provider goes on after the client left: the server reads it to its end
    await expect.poll(() => fake.streamsFinished).toBe(1);
    await expect
      .poll(async () => (await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode, e.usageEstimated]))
      .toEqual([['succeeded', 2, 'client_disconnected', false]]);
    expect(await remainingUnits(id)).toBe(98);
    const [event] = await usageEvents(id);
    // The provider's own figure: 5 tokens in, one out per word of the reply.
    expect([event!.inputTokens, event!.outputTokens, event!.providerCost?.toString()]).toEqual([5, 10, '0.025']);

    const replay = await call(api, TEXT, body, { key, idempotencyKey });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(textGenerateResponse.parse(replay.json).output.text).toBe(REPLY);
    expect(replay.json.usage).toEqual({ charged_units: 2, remaining_units: 98 });
    const streamed = await (await openStream(key, body, idempotencyKey)).rest();
    expect(streamed.map((e) => e.event)).toEqual(['done']);
    expect(fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(98);
    expect((await todaysMargin(id)).totals).toMatchObject({ requests: 1, revenue: '0.02', cost: '0.025', failed_cost: '0' });
  });

  it('a client gone before any delta: the call is aborted and not charged; the provider cost it incurred is recorded, as an estimate', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'stall', after: 0 });
    const idempotencyKey = newIdempotencyKey();
    const input = 'Leave before the first word arrives';
    const stream = await openStream(key, { input }, idempotencyKey);
    await expect.poll(() => fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(98); // held while it streams
    await stream.cancel();
    await expect.poll(() => fake.streamsAbandoned).toBe(1);
    await expect.poll(() => remainingUnits(id)).toBe(100);
    await expect
      .poll(async () => (await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode, e.usageEstimated]))
      .toEqual([['failed', 0, 'client_disconnected', true]]);
    const [event] = await usageEvents(id);
    const inputTokens = Math.ceil(input.length / 4);
    expect([event!.inputTokens, event!.outputTokens]).toEqual([inputTokens, 0]);
    expect(event!.providerCost?.toString()).toBe(String((inputTokens * 1000) / 1e6));
    const margin = (await todaysMargin(id)).totals;
    expect(margin).toMatchObject({ revenue: '0', cost: '0', failed_cost: String((inputTokens * 1000) / 1e6) });
    const key_ = await getPrisma().apiKey.findUniqueOrThrow({ where: { id } });
    expect(key_.costToday.toString(), "the day's provider cost counts it").toBe(String((inputTokens * 1000) / 1e6));

    fake.setMode({ kind: 'ok' });
    const retry = await call(api, TEXT, { input }, { key, idempotencyKey });
    expect(retry.status, retry.text).toBe(200);
    expect(await remainingUnits(id)).toBe(98);
  });

  it('a provider failing after the client left mid-stream: charged once (provider_failed), the key kept with what was delivered', async () => {
    const { key, id } = await pricedKey();
    fake.setMode({ kind: 'break', after: 2 });
    const idempotencyKey = newIdempotencyKey();
    const body = { input: 'Break after I leave' };
    const stream = await openStream(key, body, idempotencyKey);
    const first = await stream.next();
    expect(first?.event).toBe('delta');
    await stream.cancel();
    await expect
      .poll(async () => (await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode, e.usageEstimated]))
      .toEqual([['succeeded', 2, 'provider_failed', true]]);
    expect(await remainingUnits(id)).toBe(98);

    const replay = await call(api, TEXT, body, { key, idempotencyKey });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    // What reached the client before it left: at least the first delta, never more than the provider sent.
    expect(replay.json.output.text.startsWith(first!.data.text)).toBe(true);
    expect(wordsOf(REPLY).slice(0, 2).join('').startsWith(replay.json.output.text)).toBe(true);
    expect(fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(98);
  });
});

describe('the same Idempotency-Key', () => {
  it('during the stream: 409 idempotency_key_in_use, as JSON, for a stream or not', async () => {
    const { key } = await providerKey();
    fake.setMode({ kind: 'stall', after: 1 });
    const idempotencyKey = newIdempotencyKey();
    const body = { input: 'Hold the key' };
    const stream = await openStream(key, body, idempotencyKey);
    expect((await stream.next())?.event).toBe('delta');
    const json = await call(api, TEXT, body, { key, idempotencyKey });
    expectEnvelope(json, 409, 'idempotency_key_in_use');
    const streamed = await call(api, TEXT, body, { key, idempotencyKey, headers: { Accept: 'text/event-stream' } });
    expectEnvelope(streamed, 409, 'idempotency_key_in_use');
    expect(streamed.headers.get('content-type')).toContain('application/json');
    await stream.cancel();
  });

  it('after done: replayed as one done event to a stream, as the same JSON otherwise, charged once', async () => {
    const { key, id } = await providerKey();
    const idempotencyKey = newIdempotencyKey();
    const body = { input: 'Replay me' };
    const first = await (await openStream(key, body, idempotencyKey)).rest();
    const done = first.at(-1)!;
    expect(done.event).toBe('done');

    const again = await openStream(key, body, idempotencyKey);
    expectEventStreamHeaders(again.response);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    const replayed = await again.rest();
    expect(replayed.map((e) => [e.event, e.raw])).toEqual([['done', done.raw]]);

    const json = await call(api, TEXT, body, { key, idempotencyKey });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.headers.get('idempotent-replayed')).toBe('true');
    expect(json.text).toBe(done.raw);
    expect(fake.callCount).toBe(1);
    expect(await remainingUnits(id)).toBe(98);
  });
});

describe('refusals before the stream answer JSON', () => {
  const streamed = (key: string | null, body: unknown, extra: Record<string, string> = {}) =>
    call(api, TEXT, body, { key, headers: { Accept: 'text/event-stream', ...extra } });
  const expectJsonError = (result: CallResult, status: number, code: string) => {
    expectEnvelope(result, status, code);
    expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
  };

  it('401, 422 and 402 keep their JSON envelope and status', async () => {
    const { key, id } = await createTestKey({ quota: 0 });
    expectJsonError(await streamed('wgs_live_notakey', { input: 'x' }), 401, 'invalid_api_key');
    expectJsonError(await streamed(key, { input: 'x', stream: true }), 422, 'validation_error');
    expectJsonError(await streamed(key, { input: 'x' }), 402, 'quota_exhausted');
    expect(await remainingUnits(id)).toBe(0);
  });

  it('code.generate ignores the Accept header and answers JSON', async () => {
    const { key } = await createTestKey();
    const result = await call(api, '/v1/code/generate', { input: 'add two numbers' }, { key, headers: { Accept: 'text/event-stream' } });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('application/json; charset=utf-8');
    codeGenerateResponse.parse(result.json);
  });
});
