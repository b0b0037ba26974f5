// The instant provider of `npm run bench`: an OpenAI-style chat completions server on 127.0.0.1
// that answers every POST .../chat/completions at once with a fixed completion. The bench sends
// text.generate through an engine pointed at it (the provider path) and calls it directly (its
// own cost and latency), so the gate's added cost is the difference.
//
// Run: node --import tsx scripts/bench/instant-provider.ts   (env PORT, HOST)
import { createServer } from 'node:http';

const reply = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_764_000_000,
  model: 'bench-model',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: 'Idempotent APIs let clients retry safely. They never charge twice.', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: { prompt_tokens: 12, completion_tokens: 14, total_tokens: 26 },
});

const server = createServer((request, response) => {
  // The body is drained, not parsed: the fake's own cost must stay near zero.
  request.on('data', () => {});
  request.on('end', () => {
    if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"not found"}}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
    response.end(reply);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
  process.stdout.write(`instant provider listening on ${JSON.stringify(server.address())}\n`);
});
