import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { textGenerateResponse } from '@/server/contract/generation';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { cutShortInFlight } from '@/server/lifecycle/in-flight';
import { pendingRefusals } from '@/server/observability/refusal-counter';
import { api, call, createTestKey, expectNothingShown, newIdempotencyKey, remainingUnits } from '../helpers/api';
import { openStream, type StreamEvent } from '../helpers/event-stream';
import { FAKE_ERROR_TEXT, wordsOf } from '../../fakes/fake-openai';
import { withFakeOpenAi } from './support/providers/fake-openai-server';

// Output delivered is output paid for, however the stream ends (CONTRACT.md §8): once its first
// delta was written, a provider failing, the request's deadline, text that fails output_format
// "json" and a whitespace-only answer each end it with `error` `output_interrupted` (never
// provider_unavailable), charged once, the cause on its usage event; the Idempotency-Key stays with
// the call, whose replay streams the same events (or answers, as JSON, the Generation result of the
// text delivered) and never calls the engine again.

const TEXT = '/v1/text/generate';
const SECRET = 'sk-fake-endings-secret-0123456789';

process.env.PROVIDER_MAX_RETRIES = '2';
resetConfigForTests();
const fake = withFakeOpenAi({ WGS_PROVIDER_KEY_FAKE_ENDINGS_KEY: SECRET });
beforeEach(() => fake.reset());

/** A key whose text.generate (2 units, text or json) goes to the fake, priced by the operator; its own provider name (engines are cached). */
let providers = 0;
const pricedKey = () =>
  createTestKey({
    quota: 100,
    providers: {
      [`endings${++providers}`]: {
        type: 'openai',
        base_url: fake.baseUrl,
        api_key_env: 'WGS_PROVIDER_KEY_FAKE_ENDINGS_KEY',
        prices: { 'model-e': { input_per_mtok: 1000, output_per_mtok: 2000 } },
      },
    },
    operations: { 'text.generate': { engine: `endings${providers}:model-e`, units: 2, output_formats: ['text', 'json'] } },
  });

const usageEvents = (apiKeyId: string) => getPrisma().usageEvent.findMany({ where: { apiKeyId }, orderBy: { createdAt: 'asc' } });

/**
 * One stream that ends badly after its deltas, then every check of a charged ending: the terminal
 * event, the units, the usage event and its cause, the replays (streamed and JSON), no second call.
 */
async function expectChargedEnding(body: Record<string, unknown>, cause: string, reason: RegExp): Promise<StreamEvent[]> {
  const { key, id } = await pricedKey();
  const idempotencyKey = newIdempotencyKey();
  const stream = await openStream(key, body, idempotencyKey);
  const events = await stream.rest();
  const deltas = events.slice(0, -1);
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.every((e) => e.event === 'delta')).toBe(true);
  const last = events.at(-1)!;
  expect(last.event).toBe('error');
  expect(last.data.error.code).toBe('output_interrupted');
  expect(last.data.error.message).toMatch(reason);
  expect(last.data.error.message).toContain('The units were charged');
  expect(last.data.error.request_id).toBe(stream.response.headers.get('x-request-id'));
  expectNothingShown(last.raw, [FAKE_ERROR_TEXT, SECRET, 'model-e'], fake.port);

  const calls = fake.callCount;
  expect(await remainingUnits(id)).toBe(98);
  const [event, ...others] = await usageEvents(id);
  expect(others).toEqual([]);
  expect([event!.outcome, event!.units, event!.errorCode]).toEqual(['succeeded', 2, cause]);
  expect(event!.providerCost, 'its provider cost is counted').not.toBeNull();

  // The same key streamed again: the same deltas and terminal event, replayed, nothing charged or called,
  // and no refused request counted (a 200 replay: an operations audit found it in the Overview's refusals).
  const refusals = pendingRefusals();
  const again = await openStream(key, body, idempotencyKey);
  expect(again.response.headers.get('idempotent-replayed')).toBe('true');
  expect((await again.rest()).map((e) => [e.event, e.raw])).toEqual(events.map((e) => [e.event, e.raw]));
  expect(pendingRefusals()).toBeLessThanOrEqual(refusals); // less when the rollup was flushed meanwhile
  // Without the stream's Accept: the Generation result of the text delivered.
  const json = await call(api, TEXT, body, { key, idempotencyKey });
  expect(json.status, json.text).toBe(200);
  expect(json.headers.get('idempotent-replayed')).toBe('true');
  const result = textGenerateResponse.parse(json.json);
  expect(result).toMatchObject({ id: event!.id, output: { text: deltas.map((e) => e.data.text).join('') } });
  expect(result.usage).toEqual({ charged_units: 2, remaining_units: 98 });
  expect(fake.callCount).toBe(calls);
  expect(await remainingUnits(id)).toBe(98);
  expect(await usageEvents(id)).toHaveLength(1);
  return events;
}

describe('a stream that ends badly after its first delta is charged once and never run again', () => {
  it('the provider failing mid-stream: no retry, no fallback', async () => {
    fake.setReply('Three words then the provider breaks down.');
    fake.setMode({ kind: 'break', after: 3 });
    const events = await expectChargedEnding({ input: 'Break please' }, 'provider_failed', /provider failed/);
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'delta', 'error']);
    expect(fake.callCount).toBe(1);
  });

  it('output_format json with text that does not parse: every piece sent, then output_interrupted', async () => {
    const reply = 'This is {not json at all';
    fake.setReply(reply);
    const events = await expectChargedEnding({ input: 'Answer in JSON', output_format: 'json' }, 'output_not_json', /not valid JSON/);
    expect(events.slice(0, -1).map((e) => e.data.text)).toEqual(wordsOf(reply));
    expect(fake.callCount).toBe(1);
  });

  it('an answer of whitespace alone', async () => {
    fake.setReply('   \n\t  ');
    await expectChargedEnding({ input: 'Say nothing' }, 'output_empty', /nothing but whitespace/);
  });

  it('the provider usage of a charged ending is its own figure when it reported one, else an estimate', async () => {
    fake.setReply('{"half": "a JSON object, cut');
    await expectChargedEnding({ input: 'JSON please', output_format: 'json' }, 'output_not_json', /not valid JSON/);
    const [finished] = await getPrisma().usageEvent.findMany({ where: { errorCode: 'output_not_json' }, orderBy: { createdAt: 'desc' } });
    expect([finished!.inputTokens, finished!.usageEstimated], 'the fake reports 5 tokens in when it finishes').toEqual([5, false]);

    fake.setReply('One two three four.');
    fake.setMode({ kind: 'break', after: 2 });
    await expectChargedEnding({ input: 'Break' }, 'provider_failed', /provider failed/);
    const [broken] = await getPrisma().usageEvent.findMany({ where: { errorCode: 'provider_failed' }, orderBy: { createdAt: 'desc' } });
    expect(broken!.usageEstimated).toBe(true);
  });
});

describe("the request's deadline cutting a long answer", () => {
  beforeAll(() => {
    process.env.IDEMPOTENCY_LEASE_SECONDS = '7'; // the engine call is cut 2 s after it starts
    resetConfigForTests();
  });
  afterAll(() => {
    delete process.env.IDEMPOTENCY_LEASE_SECONDS;
    resetConfigForTests();
  });

  it('is charged once, deadline_exceeded, and its key replays what was delivered', async () => {
    fake.setReply('A long answer that the deadline cuts after its first words.');
    fake.setMode({ kind: 'stall', after: 2 });
    const events = await expectChargedEnding({ input: 'Take your time' }, 'deadline_exceeded', /time limit/);
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'error']);
    expect(fake.streamsAbandoned, 'the provider call was cut').toBe(1);
  });
});

// Last in this file: a stop's cut lasts for the rest of the process (every later call is cut at once).
describe('an instance stopping whose grace ran out', () => {
  it('cuts a delivered stream short: charged once (stream_interrupted), output_interrupted', async () => {
    const { key, id } = await pricedKey();
    fake.setReply('Words before the stop, and more after it.');
    fake.setMode({ kind: 'stall', after: 2 });
    const stream = await openStream(key, { input: 'Stop the instance' });
    expect((await stream.next())?.event).toBe('delta');
    expect(cutShortInFlight()).toBe(1);
    const last = (await stream.rest()).at(-1)!;
    expect([last.event, last.data.error.code]).toEqual(['error', 'output_interrupted']);
    expect(last.data.error.message).toMatch(/service stopped/);
    expect(await remainingUnits(id)).toBe(98);
    expect((await usageEvents(id)).map((e) => [e.outcome, e.units, e.errorCode])).toEqual([['succeeded', 2, 'stream_interrupted']]);
  });
});
