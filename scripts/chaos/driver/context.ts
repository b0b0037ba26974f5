import type { ChatProvider } from '../fakes/chat-provider';
import type { ChaosStripe } from '../fakes/stripe';
import type { WebhookReceiver } from '../fakes/webhook-receiver';
import type { Clock, FaultLog } from '../faults/fault-log';
import type { CallRecord, History } from '../history';
import type { IssuedKey } from '../stack/setup';
import type { CallPlan } from './plan';
import type { ProductProcess } from '../stack/processes';

// What the run's clients share: the instances to send to, the keys, the fakes to plan calls with,
// and the history they record into.

export interface DriverContext {
  seed: number;
  clock: Clock;
  faults: FaultLog;
  instances: ProductProcess[];
  keys: Map<string, IssuedKey>;
  chat: ChatProvider;
  stripe: ChaosStripe;
  webhooks: WebhookReceiver;
  history: History;
  /** Clock time after which no new call starts. */
  stopAt: number;
  /** Clock time after which a call still retrying gives up. */
  giveUpAt: number;
}

/** The record of a planned call, in the history from now on. */
export function newCall(ctx: DriverContext, plan: CallPlan, fields: Pick<CallRecord, 'operation' | 'units' | 'provider'>): CallRecord {
  const call: CallRecord = { id: plan.id, kind: plan.kind, key: plan.key.name, ...fields, faults: [], attempts: [] };
  ctx.history.calls.push(call);
  return call;
}
