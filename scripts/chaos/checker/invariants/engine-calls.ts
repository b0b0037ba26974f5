import type { CallRecord, History } from '../../history';
import type { BookUsage } from '../books';
import type { Invariant, Violation } from '../invariant';
import type { Links } from '../links';

// Every call a provider answered is on the books: per key and engine, the calls the fake providers
// saw equal the times the key's usage events name that engine among the engines they tried. Each
// call's own count is compared too, where its usage events are known, to name the calls that differ.

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

export const engineCallsAccounted: Invariant = {
  name: 'engine-calls-accounted',
  description: 'every engine call the fake providers answered accounted to exactly one usage event',
  check(history, books, links: Links) {
    const callsById = new Map(history.calls.map((call) => [call.id, call]));
    const seen = new Map<string, number>();
    const violations: Violation[] = [];
    for (const engineCall of history.engineCalls) {
      const call = engineCall.callId ? callsById.get(engineCall.callId) : undefined;
      if (!call) violations.push({ subject: `engine ${engineCall.engine}`, message: `a call at ${engineCall.at} ms names no chaos call` });
      else tally(seen, `${call.key}\n${engineCall.engine}`);
    }
    const recorded = new Map<string, number>();
    const names = new Map(history.keys.map((key) => [key.id, key.name]));
    for (const event of books.usage) {
      const name = names.get(event.keyId);
      if (!name) continue;
      for (const engine of event.enginesTried.filter(isProviderEngine)) tally(recorded, `${name}\n${engine}`);
    }
    const pairs = new Set([...seen.keys(), ...recorded.keys()]);
    for (const pair of pairs) {
      const [keyName, engine] = pair.split('\n') as [string, string];
      const calls = seen.get(pair) ?? 0;
      const events = recorded.get(pair) ?? 0;
      if (calls === events) continue;
      const evidence = differingCalls(history, links, keyName, engine).slice(0, 5).join('; ');
      violations.push({
        subject: `key ${keyName}, ${engine}`,
        message: `${calls} engine calls, ${events} in usage events${evidence ? `: ${evidence}` : ''}`,
      });
    }
    return { checked: history.engineCalls.length, violations };
  },
};
