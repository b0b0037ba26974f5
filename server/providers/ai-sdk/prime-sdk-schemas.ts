import { modelMessageSchema } from 'ai';

// generateText validates every prompt against `z.array(modelMessageSchema)`, a schema it builds
// per call. zod 4.6 asks of each new schema whether it can contain a cycle, and caches only
// certain answers: while the SDK's lazy JSON-value schema (reached through `providerOptions`) has
// never been parsed, the answer stays uncertain and the whole message schema is walked again on
// every call (~50-70 µs of CPU and its garbage). One parse that reaches it resolves the lazy; the
// answer is then cached. See docs/performance.md, "What each runtime setting buys".
modelMessageSchema.safeParse({ role: 'user', content: '', providerOptions: { prime: { value: [null] } } });
