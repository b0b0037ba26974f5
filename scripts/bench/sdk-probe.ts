// What the AI SDK itself costs per text call, with no network and no gate: CPU of this process per
// call, sequentially, after a warm-up.
//   response    building and reading the canned Response (what the HTTP layer hands the SDK)
//   doGenerate  the openai-compatible model alone: request body, reply parsing and validation
//   generateText on a model that answers at once (the SDK's own orchestration, nothing else)
//   generateText through the openai-compatible model on the canned Response (both together)
//   JSON loop   the reply parsed and serialised 100 times: a control, little code run over and over
// With PROBE_GAP_MS=7, one call every 7 ms instead of back to back (each call's own CPU): what a pause
// costs code this large (docs/performance.md, Where the server's CPU goes).
// Run: npx tsx scripts/bench/sdk-probe.ts   (PROBE_GAP_MS=7)
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { generateText } from 'ai';
import { runProbe } from './run-probe';

const reply = JSON.stringify({
  id: 'chatcmpl-probe',
  object: 'chat.completion',
  created: 1_764_000_000,
  model: 'probe-model',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Idempotent APIs let clients retry safely.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 },
});
const cannedFetch = async () => new Response(reply, { status: 200, headers: { 'content-type': 'application/json' } });
const model = createOpenAICompatible({ name: 'probe', baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', fetch: cannedFetch }).chatModel(
  'probe-model',
);

const instantModel: LanguageModelV3 = {
  specificationVersion: 'v3',
  provider: 'probe',
  modelId: 'instant',
  supportedUrls: {},
  doGenerate: async () => ({
    content: [{ type: 'text', text: 'Idempotent APIs let clients retry safely.' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: {
      inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 14, text: 14, reasoning: 0 },
    },
    warnings: [],
  }),
  doStream: () => Promise.reject(new Error('not used')),
};

const textCall = (target: LanguageModelV3) =>
  generateText({
    model: target,
    system: 'Answer in plain text without markdown.',
    prompt: 'Summarise the benefits of idempotent APIs in two sentences.',
    maxRetries: 0,
  });

const cases: Record<string, () => Promise<unknown>> = {
  response: async () => (await cannedFetch()).text(),
  doGenerate: async () => model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Summarise idempotent APIs.' }] }] }),
  'generateText, instant model': () => textCall(instantModel),
  'generateText, openai-compatible': () => textCall(model),
  'JSON loop': async () => {
    for (let i = 0; i < 100; i++) JSON.stringify(JSON.parse(reply));
  },
};

const GAP_MS = Number(process.env.PROBE_GAP_MS ?? 0);
const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function main() {
  for (const [label, call] of Object.entries(cases)) {
    for (let i = 0; i < 3000; i++) await call();
    const calls = GAP_MS ? 500 : 10_000;
    let spent = 0;
    for (let i = 0; i < calls; i++) {
      if (GAP_MS) await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      const before = cpuMicros();
      await call();
      spent += cpuMicros() - before;
    }
    const pace = GAP_MS ? `, one call every ${GAP_MS} ms` : '';
    console.log(`${label.padEnd(34)} ${(spent / calls).toFixed(0).padStart(5)} us CPU/call${pace}`);
  }
}

runProbe(main);
