import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai-v7';

type APIError = InstanceType<typeof OpenAI.APIError>;
import { createTestKey } from '../../helpers/api';
import { startFakeOpenAi, type FakeOpenAi } from '../../../fakes/fake-openai';
import pg from 'pg';
import { books, killAllProducts } from '../support/product/product';
import { losingProxy, sdk, startSurface, stopSurface, surfaceKey, type Setup } from './support';

// Exactly once on /openai/v1 with the SDKs' own retries: a lost answer is answered again by the call
// that produced it (charged once), a retry of a running call is 409 (x-should-retry: true), two calls
// with the same body are two calls, an Idempotency-Key works as on /v1, and a spent key stops the SDK
// at once. Errors arrive as the SDK's classes with OpenAI's codes.

let setup: Setup;
let fake: FakeOpenAi;
const messages = [{ role: 'user' as const, content: 'Summarise the plot of Hamlet in one line.' }];

async function usageEvents(apiKeyId: string): Promise<{ surface: string; error_code: string | null }[]> {
  const client = new pg.Client({ connectionString: setup.database.url });
  await client.connect();
  try {
    const sql = 'SELECT surface, error_code FROM usage_events WHERE api_key_id = $1 ORDER BY created_at';
    return (await client.query(sql, [apiKeyId])).rows;
  } finally {
    await client.end();
  }
}

/** A key whose text.generate runs on the fake provider (its replies and failures set by each test), 2 units a call. */
const fakeEngineKey = () =>
  createTestKey({
    quota: 10,
    providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_ONCE' } },
    operations: { 'text.generate': { engine: 'fake:model-once', units: 2 } },
  });

beforeAll(async () => {
  fake = await startFakeOpenAi();
  setup = await startSurface('wgs_openai_once', { WGS_PROVIDER_KEY_FAKE_ONCE: 'sk-fake-once', LOG_FORMAT: 'json' }); // the request log read below
}, 300_000);

afterAll(async () => {
  killAllProducts();
  await fake?.close();
  await stopSurface(setup);
});

describe('SDK retries without an Idempotency-Key', () => {
  it('answers a retry after a lost answer from the call that produced it: same id, charged once', async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const proxy = await losingProxy(setup.product.base, 1);
    try {
      const { client, sent } = sdk(proxy.base, key);
      const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }).withResponse();
      expect(sent.map((request) => request.retry)).toEqual(['0', '1']);
      expect(data.id).toBe(JSON.parse(proxy.lost[0]!).id);
      expect(response.headers.get('idempotent-replayed')).toBe('true');
      expect(await books(setup.database.url, id)).toMatchObject({ remaining: 9, captured: 1, succeeded: 1 });
    } finally {
      await proxy.close();
    }
  });

  it('runs two calls with the same body as two calls, both charged', async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const { client } = sdk(setup.product.base, key);
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const second = await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    expect(second.id).not.toBe(first.id);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 8, captured: 2 });
  });

  it('answers a retry of a call still running with 409 and x-should-retry: true, then with its answer', async () => {
    const { key, id } = await fakeEngineKey();
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 3_000 });
    const call = (retry: string) =>
      fetch(`${setup.product.base}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-stainless-retry-count': retry },
        body: JSON.stringify({ model: 'text.generate', messages }),
      });
    const running = call('0');
    await expect.poll(() => fake.callCount, { timeout: 20_000 }).toBe(1);
    const early = await call('1');
    expect(early.status).toBe(409);
    expect(early.headers.get('x-should-retry')).toBe('true');
    const refused = (await early.json()).error;
    expect(refused.code).toBe('idempotency_key_in_use');
    expect(refused.message, 'no word of a key this caller never sent').not.toContain('Idempotency-Key');
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const answered = await (await running).json();
    const late = await call('2');
    expect(late.status).toBe(200);
    expect((await late.json()).id).toBe(answered.id);
    expect(fake.callCount).toBe(1);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 8, captured: 1 });
  });
});

describe('an Idempotency-Key on /openai/v1', () => {
  it('replays the same call, refuses the key with another body, and is required where the package says so', async () => {
    const { key, id } = await surfaceKey({ quota: 10 });
    const { client } = sdk(setup.product.base, key);
    const options = { headers: { 'Idempotency-Key': 'order-4711-summary' } };
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, options);
    const again = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }, options);
    expect(again.id).toBe(first.id);
    const reused = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Something else' }] }, options)
      .catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((reused as APIError).code).toBe('idempotency_key_reused');
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 9, captured: 1 });

    const strict = await surfaceKey({ requireKey: true });
    const { client: strictClient, sent } = sdk(setup.product.base, strict.key);
    const refused = await strictClient.chat.completions.create({ model: 'gpt-4o-mini', messages }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as APIError).code).toBe('idempotency_key_required');
    expect((refused as APIError).headers?.get('x-should-retry')).toBe('false');
    expect(sent).toHaveLength(1);
    const keyed = await strictClient.chat.completions.create({ model: 'gpt-4o-mini', messages }, options);
    expect(keyed.object).toBe('chat.completion');
  });
});

describe('a stream that fails, or is left, before or after its first chunk', () => {
  it('ends with data: {"error"} the SDK raises, charged once, and its key answers what was delivered without running again', async () => {
    const { key, id } = await fakeEngineKey();
    fake.reset();
    fake.setReply('One two three four five.');
    fake.setMode({ kind: 'break', after: 2 });
    const { client, sent } = sdk(setup.product.base, key);
    const options = { headers: { 'Idempotency-Key': 'stream-cut-1' } };
    const read = async () => {
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'text.generate', messages, stream: true }, options)
        .withResponse();
      const pieces: string[] = [];
      const ids = new Set<string>();
      const failure = await (async () => {
        for await (const chunk of stream) {
          pieces.push(chunk.choices[0]?.delta.content ?? '');
          ids.add(chunk.id);
        }
      })().catch((error: unknown) => error);
      return { text: pieces.join(''), ids: [...ids], failure: failure as APIError, replayed: response.headers.get('idempotent-replayed') };
    };
    const first = await read();
    expect(first.failure).toBeInstanceOf(OpenAI.APIError);
    expect(first.failure.code).toBe('output_interrupted');
    expect(first.failure.message).toContain('The units were charged');
    expect(first.text).not.toBe('');
    expect(sent, 'an error inside a stream is not retried').toHaveLength(1);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 8, captured: 1, held: 0, inFlight: 0 });

    const again = await read();
    expect(again.replayed).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.ids, "the replay's chunks carry the call's id").toEqual(first.ids);
    expect(first.ids).toHaveLength(1);
    expect(again.failure).toBeInstanceOf(OpenAI.APIError);
    expect(again.failure.code).toBe('output_interrupted');
    expect(fake.callCount, 'the engine is never called again').toBe(1);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 8, captured: 1 });
    const events = await usageEvents(id);
    expect(events).toEqual([{ surface: 'openai', error_code: 'provider_failed' }]);
  });

  it('charges nothing for a stream its client left before the first chunk, and aborts the engine call', async () => {
    const { key, id } = await fakeEngineKey();
    fake.reset();
    fake.setReply('One two three.');
    fake.setMode({ kind: 'stall', after: 0 });
    const { client } = sdk(setup.product.base, key, { maxRetries: 0 });
    const leave = new AbortController();
    const opened = client.chat.completions.create({ model: 'text.generate', messages, stream: true }, { signal: leave.signal });
    await expect.poll(() => fake.callCount).toBe(1);
    leave.abort();
    await expect(opened).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await expect.poll(() => fake.streamsAbandoned).toBe(1); // the provider call is aborted
    await expect.poll(() => books(setup.database.url, id)).toMatchObject({ remaining: 10, captured: 0, held: 0, inFlight: 0 });
    expect(await usageEvents(id)).toEqual([{ surface: 'openai', error_code: 'client_disconnected' }]);
  });

  it("charges nothing for a code stream its client left before its whole answer, and logs a finished one's units (Python SDK audit)", async () => {
    const { key, id } = await createTestKey({
      quota: 10,
      providers: { fake: { type: 'openai', base_url: fake.baseUrl, api_key_env: 'WGS_PROVIDER_KEY_FAKE_ONCE' } },
      operations: { 'code.generate': { engine: 'fake:model-once', units: 2 } },
    });
    fake.reset();
    fake.setMode({ kind: 'slow', ms: 1_500 });
    const { client } = sdk(setup.product.base, key, { maxRetries: 0 });
    const leave = new AbortController();
    const opened = client.chat.completions.create({ model: 'code.generate', messages, stream: true }, { signal: leave.signal });
    await expect.poll(() => fake.callCount).toBe(1);
    leave.abort();
    await expect(opened).rejects.toBeInstanceOf(OpenAI.APIUserAbortError);
    await expect.poll(() => books(setup.database.url, id)).toMatchObject({ remaining: 10, captured: 0, held: 0, inFlight: 0 });
    expect(await usageEvents(id)).toEqual([{ surface: 'openai', error_code: 'client_disconnected' }]);
    // Read to its end it is charged, and its log line says so (it said units 0).
    fake.setMode({ kind: 'ok' });
    const chunks = [];
    for await (const chunk of await client.chat.completions.create({ model: 'code.generate', messages, stream: true })) chunks.push(chunk);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 8, captured: 1 });
    const finished = () =>
      setup.product
        .output()
        .split('\n')
        .filter((line) => line.includes('"operation":"code.generate"') && line.includes('"status":200'));
    await expect.poll(finished, { timeout: 5_000 }).toEqual([expect.stringContaining('"units":2')]); // lines are written within a second
  });

  it('answers a stream that fails before its first chunk 503, charged nothing, with the point of the minute it took in x-ratelimit-*', async () => {
    const { key, id } = await fakeEngineKey();
    fake.reset();
    fake.setMode({ kind: 'status', status: 500 });
    const { client } = sdk(setup.product.base, key, { maxRetries: 0 });
    const failed = (await client.chat.completions
      .create({ model: 'text.generate', messages, stream: true })
      .catch((error: unknown) => error)) as APIError;
    expect(failed).toBeInstanceOf(OpenAI.InternalServerError);
    expect([failed.status, failed.code, failed.headers?.get('x-should-retry')]).toEqual([503, 'service_unavailable', 'true']);
    expect(failed.headers?.get('x-ratelimit-limit-requests')).toMatch(/^\d+$/);
    expect(failed.headers?.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
    expect(failed.headers?.get('x-ratelimit-reset-requests')).toMatch(/^\d+s$/);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 10, captured: 0, held: 0, inFlight: 0 });
  });
});

describe('errors as the SDK raises them', () => {
  it('stops at once on spent units: 429 insufficient_quota, x-should-retry: false, one request', async () => {
    const { key, id } = await surfaceKey({ quota: 1 });
    const { client, sent } = sdk(setup.product.base, key);
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages });
    const spent = await client.chat.completions.create({ model: 'gpt-4o-mini', messages }).catch((error: unknown) => error);
    expect(spent).toBeInstanceOf(OpenAI.RateLimitError);
    expect((spent as APIError).code).toBe('insufficient_quota');
    expect((spent as APIError).type).toBe('insufficient_quota');
    expect(sent).toHaveLength(2);
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 0, captured: 1 });
  });

  it('names the key, the model and each parameter it cannot honour', async () => {
    const { key } = await surfaceKey();
    const { client } = sdk(setup.product.base, key, { maxRetries: 0 });
    const wrongKey = await sdk(setup.product.base, 'wgs_live_' + 'x'.repeat(40))
      .client.models.list()
      .catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrongKey as APIError).code).toBe('invalid_api_key');
    // The scheme, and RFC 6750's error for a token sent, as /v1 says them (security audit: no error= here).
    expect((wrongKey as APIError).headers?.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_token"');
    const unknownModel = await client.chat.completions.create({ model: 'gpt-5', messages }).catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownModel as APIError).code).toBe('model_not_found');
    const refusals: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, 'tools'],
      [{ n: 2 }, 'n'],
      [{ logprobs: true }, 'logprobs'],
      [{ frobnicate: 1 }, 'frobnicate'],
      [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } }, 'response_format'],
      [
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] },
        'messages[0].content[0]',
      ],
    ];
    for (const [extra, param] of refusals) {
      const body = { model: 'gpt-4o-mini', messages, ...extra } as OpenAI.ChatCompletionCreateParamsNonStreaming;
      const refused = await client.chat.completions.create(body).catch((error: unknown) => error);
      expect(refused, param).toBeInstanceOf(OpenAI.BadRequestError);
      expect((refused as APIError).param, param).toBe(param);
      expect((refused as APIError).headers?.get('x-should-retry')).toBe('false');
    }
  });

  it("refuses what /v1's schema or the package refuses in this surface's words: the parameter as sent, a documented code", async () => {
    const { key, id } = await surfaceKey();
    const { client } = sdk(setup.product.base, key, { maxRetries: 0 });
    const speech = (body: Record<string, unknown>) =>
      client.audio.speech.create({ model: 'tts-1', voice: 'alloy', ...body } as unknown as OpenAI.Audio.SpeechCreateParams);
    const refusals: [string, () => Promise<unknown>, string, string, RegExp][] = [
      ['no input', () => speech({}), 'input', 'missing_required_parameter', /^input: required/],
      ['input too long', () => speech({ input: 'a'.repeat(24_001) }), 'input', 'invalid_value', /^input: must be at most 24,000/],
      ['a voice the package does not sell', () => speech({ input: 'hi', voice: 'verse' }), 'voice', 'unsupported_value', /^voice: "verse"/],
      [
        'an image format the package does not sell',
        () => client.images.generate({ model: 'gpt-image-1', prompt: 'a cat', output_format: 'jpeg' }),
        'output_format',
        'unsupported_value',
        /^output_format: "jpeg"/,
      ],
      [
        'a chat past the input limit',
        () => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a'.repeat(64_001) }] }),
        'messages',
        'invalid_value',
        /^messages: must be at most 64,000/,
      ],
    ];
    for (const [what, send, param, code, message] of refusals) {
      const refused = (await send().catch((error: unknown) => error)) as APIError;
      expect(refused, what).toBeInstanceOf(OpenAI.BadRequestError);
      expect({ param: refused.param, code: refused.code }, what).toEqual({ param, code });
      expect((refused.error as { message: string }).message, what).toMatch(message);
    }
    expect(await books(setup.database.url, id)).toMatchObject({ remaining: 1000, captured: 0 });
  });
});

describe("the provider's finish reason", () => {
  it("an answer cut at max_tokens says finish_reason 'length', as JSON, as a stream and in a replay; a whole one 'stop'", async () => {
    const { key } = await fakeEngineKey();
    fake.reset();
    fake.setReply('One two three four five.');
    const { client } = sdk(setup.product.base, key);
    const cut = await client.chat.completions.create({ model: 'text.generate', messages, max_tokens: 2 });
    expect(cut.choices[0]!.finish_reason).toBe('length');
    expect(cut.choices[0]!.message.content).toBe('One two ');
    const whole = await client.chat.completions.create({ model: 'text.generate', messages });
    expect(whole.choices[0]!.finish_reason).toBe('stop');

    const options = { headers: { 'Idempotency-Key': 'finish-length-1' } };
    const lastFinish = async () => {
      const stream = await client.chat.completions.create({ model: 'text.generate', messages, max_tokens: 3, stream: true }, options);
      const reasons: (string | null)[] = [];
      for await (const chunk of stream) reasons.push(chunk.choices[0]?.finish_reason ?? null);
      return reasons.at(-1);
    };
    expect(await lastFinish()).toBe('length');
    expect(await lastFinish(), 'the replay keeps it').toBe('length');
    expect(fake.callCount).toBe(3);
  });
});
