// Another process on the same database (run with tsx): calls a provider's engine through
// callEngine until it has failed `count` times, so the circuit it opens is seen by the test's own process.
import { disconnectDb, getSqlDb } from '../../../../server/db/client';
import { callEngine } from '../../../../server/domain/generation/call-engine';

const [engineName, count] = [process.argv[2]!, Number(process.argv[3])];
let failures = 0;
for (let i = 0; i < count; i++) {
  try {
    await callEngine(getSqlDb(), engineName, (engine) =>
      engine.generateText({ input: 'probe', outputFormat: 'text' }, AbortSignal.timeout(10_000)),
    );
  } catch {
    failures++;
  }
}
await disconnectDb();
process.stdout.write(`${JSON.stringify({ failures })}\n`);
