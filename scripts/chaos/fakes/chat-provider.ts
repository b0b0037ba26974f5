import { startFakeOpenAi, type CallPlan as FakeCallPlan, type FakeCall, type FakeMode, type FakeOpenAi } from '../../../fakes/fake-openai';
import type { EngineCallRecord, FaultKind } from '../history';
import type { Clock, FaultLog } from '../faults/fault-log';

// The fake provider of text and code (the OpenAI wire protocol: chat completions, JSON and
// streamed): every prompt names its chaos call (`[chaos <id>]`), so the fake records which call
// each engine call served, answers it with the call's own reply, and makes the call's first engine
// call meet the call's provider fault (later ones, a retry or a fallback, are answered).

const PROVIDER_NAME = 'chat';
const TAG = /\[chaos ([A-Za-z0-9_-]+)\]/;

/** The tag a prompt carries so the fakes know its call. */
export const tagOf = (callId: string) => `[chaos ${callId}]`;

interface Planned {
  fault?: FaultKind;
  reply: string;
  /** Words of a stream sent before it is cut (stream-cut, provider-timeout). */
  cutAfter: number;
  errorStatus: number;
  calls: number;
}

export interface ChatProvider {
  baseUrl: string;
  engineCalls: EngineCallRecord[];
  plan(callId: string, planned: Omit<Planned, 'calls'>): void;
  close(): Promise<void>;
}

/** The mode of a call's first engine call: its fault, or the delay a client's hang-up needs to land. */
function modeOf(planned: Planned, streamed: boolean): FakeMode | undefined {
  switch (planned.fault) {
    case 'provider-error':
      return { kind: 'status', status: planned.errorStatus };
    case 'provider-slow':
      return streamed ? { kind: 'drip', ms: 60 } : { kind: 'slow', ms: 700 };
    case 'provider-truncated':
      return { kind: 'truncate' };
    case 'provider-timeout':
      return streamed ? { kind: 'stall', after: planned.cutAfter } : { kind: 'hang' };
    case 'stream-cut':
      return { kind: 'break', after: planned.cutAfter };
    case 'client-gone-before-answer':
      return { kind: 'slow', ms: 900 };
    case 'client-gone-before-delta':
      return { kind: 'drip', ms: 900 };
    case 'client-gone-after-delta':
      return { kind: 'drip', ms: 40 };
    default:
      return undefined;
  }
}

const PROVIDER_FAULTS = new Set<FaultKind>(['provider-error', 'provider-slow', 'provider-truncated', 'provider-timeout', 'stream-cut']);

export async function startChatProvider(clock: Clock, faults: FaultLog): Promise<ChatProvider> {
  const fake: FakeOpenAi = await startFakeOpenAi();
  const planned = new Map<string, Planned>();
  const engineCalls: EngineCallRecord[] = [];
  fake.setPlanOf((call: FakeCall): FakeCallPlan | undefined => {
    const body = call.body as { model?: string; stream?: boolean };
    const callId = TAG.exec(JSON.stringify(call.body))?.[1];
    engineCalls.push({ ...(callId ? { callId } : {}), engine: `${PROVIDER_NAME}:${body.model}`, at: clock() });
    const entry = callId ? planned.get(callId) : undefined;
    if (!entry) return undefined;
    entry.calls++;
    if (entry.calls > 1) return { reply: entry.reply };
    const mode = modeOf(entry, body.stream === true);
    if (entry.fault && PROVIDER_FAULTS.has(entry.fault)) faults.note(entry.fault, callId);
    return { reply: entry.reply, ...(mode ? { mode } : {}) };
  });
  return {
    baseUrl: fake.baseUrl,
    engineCalls,
    plan: (callId, entry) => planned.set(callId, { ...entry, calls: 0 }),
    close: () => fake.close(),
  };
}
