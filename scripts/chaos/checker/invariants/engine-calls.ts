import type { CallRecord, History } from '../../history';
import type { BookUsage } from '../books';
import type { Invariant, Violation } from '../invariant';
import type { Links } from '../links';

// Every call a provider answered is on the books, once: per key and engine, each call the fake
// provider saw is named among the engines tried of one of the key's usage events (no more calls
// than mentions; a failed attempt may name an engine its request never reached, a timeout before
// the call arrived, so mentions may exceed calls), and no call is credited with more answers from
// an engine than that engine got calls for it. Each call's own counts name the calls that differ.

const isProviderEngine = (engine: string) => engine !== 'local';
const tally = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

function mentions(events: BookUsage[], engine: string): number {
  return events.reduce((sum, event) => sum + event.enginesTried.filter((tried) => tried === engine).length, 0);
}

/** Calls whose own engine calls and usage events disagree (the evidence of a key's difference). */
function differingCalls(history: History, links: Links, keyName: string, engine: string): string[] {
  const seen = new Map<string, number>();
  for (const call of history.engineCalls) if (call.engine === engine && call.callId) tally(seen, call.callId);
  const calls = history.calls.filter((call: CallRecord) => call.key === keyName);
  return calls
    .filter((call) => (seen.get(call.id) ?? 0) !== mentions(links.eventsOf(call), engine))
    .map((call) => `${call.id} (${seen.get(call.id) ?? 0} calls, ${mentions(links.eventsOf(call), engine)} in usage)`);
}

function count(history: History, books: { usage: BookUsage[] }, violations: Violation[]) {
  const callsById = new Map(history.calls.map((call) => [call.id, call]));
  const seen = new Map<string, number>();
  const named = new Map<string, number>();
  for (const engineCall of history.engineCalls) {
    const call = engineCall.callId ? callsById.get(engineCall.callId) : undefined;
    if (!call) violations.push({ subject: `engine ${engineCall.engine}`, message: `a call at ${engineCall.at} ms names no chaos call` });
    else tally(seen, `${call.key}\n${engineCall.engine}`);
  }
  const names = new Map(history.keys.map((key) => [key.id, key.name]));
  for (const event of books.usage) {
    const name = names.get(event.keyId);
    if (name) for (const engine of event.enginesTried.filter(isProviderEngine)) tally(named, `${name}\n${engine}`);
  }
  return { seen, named };
}

/** Calls credited with more answers from an engine than the engine got calls for them. */
function answeredUncalled(history: History, links: Links): Violation[] {
  const seen = new Map<string, number>();
  for (const call of history.engineCalls) if (call.callId) tally(seen, `${call.callId}\n${call.engine}`);
  const violations: Violation[] = [];
  for (const call of history.calls) {
    const answered = new Map<string, number>();
    for (const event of links.eventsOf(call))
      if (event.outcome === 'succeeded' && isProviderEngine(event.engine)) tally(answered, event.engine);
    for (const [engine, times] of answered) {
      const calls = seen.get(`${call.id}\n${engine}`) ?? 0;
      if (times > calls)
        violations.push({
          subject: `call ${call.id}`,
          message: `${times} usage events answered by ${engine}, which got ${calls} calls for it`,
        });
    }
  }
  return violations;
}

export const engineCallsAccounted: Invariant = {
  name: 'engine-calls-accounted',
  description: 'every engine call the fake providers answered accounted to exactly one usage event',
  check(history, books, links: Links) {
    const violations: Violation[] = [];
    const { seen, named } = count(history, books, violations);
    for (const [pair, calls] of seen) {
      const [keyName, engine] = pair.split('\n') as [string, string];
      if (calls <= (named.get(pair) ?? 0)) continue;
      const evidence = differingCalls(history, links, keyName, engine).slice(0, 5).join('; ');
      violations.push({
        subject: `key ${keyName}, ${engine}`,
        message: `${calls} engine calls, ${named.get(pair) ?? 0} in usage events${evidence ? `: ${evidence}` : ''}`,
      });
    }
    violations.push(...answeredUncalled(history, links));
    return { checked: history.engineCalls.length, violations };
  },
};
