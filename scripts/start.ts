// The production start (`npm run start:production`, the container's CMD): this file compiled,
// dist/start.js, runs `npm start`'s server (scripts/serve.ts, compiled into dist/) with
// --production: nothing is built, and a missing build or setting stops the start
// (server/instance/production-mode.ts). `npm start` itself is scripts/start.mjs, which builds
// what is stale first.
import { restartWithAsyncContextFrame } from './lib/async-context-frame.mjs';

restartWithAsyncContextFrame();
await import(new URL('../dist/serve.js', import.meta.url).href);
