import type { Attempt, CallRecord, FaultKind } from '../history';
import { streamErrorCode } from '../checker/answers';
import type { Random } from '../random';
import type { ProductProcess } from '../stack/processes';
import type { DriverContext } from './context';
import { send, type Answer, type HangUp, type Outgoing } from './http';

// A call's attempts as an official SDK makes them: sent to one of the instances, and sent again
// with the same Idempotency-Key after a lost answer (a network error, a stream cut short), a 409,
// a 429 or a 5xx, after the Retry-After the product asked for (at most 5 s here) or a
// short pause. Only the first attempt meets the call's planned hang-up.

const MAX_ATTEMPTS = 15;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the client knows of an attempt, without its headers. */
export function recorded(answer: Answer): Attempt {
  const { headers: _headers, ...attempt } = answer;
  return Object.fromEntries(Object.entries(attempt).filter(([, value]) => value !== undefined)) as unknown as Attempt;
}

/** Whether an SDK sends the request again. */
export function retryable(answer: Answer): boolean {
  if (answer.status === undefined) return true;
  if ([409, 429, 500, 502, 503].includes(answer.status)) return true;
  if (answer.status !== 200 || !answer.deltas) return false;
  if (answer.ending === 'cut') return true;
  return answer.ending === 'error' && streamErrorCode(answer) === 'provider_unavailable';
}

function pause(answer: Answer, random: Random): number {
  const retryAfter = Number(answer.headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(retryAfter, 5) * 1000;
  return random.int(150, 600);
}

/** The instance an attempt goes to: the planned one first, then any that is up. */
export async function pickInstance(ctx: DriverContext, random: Random, preferred?: string): Promise<ProductProcess> {
  for (;;) {
    const up = ctx.instances.filter((instance) => instance.up);
    const chosen = up.find((instance) => instance.name === preferred) ?? (up.length ? random.pick(up) : undefined);
    if (chosen) return chosen;
    await sleep(250);
  }
}

const HANG_UPS: Partial<Record<FaultKind, HangUp>> = {
  'client-gone-before-answer': 'before-answer',
  'client-gone-before-delta': 'before-delta',
  'client-gone-after-delta': 'after-delta',
};

export interface Sending {
  /** The call its attempts are recorded in (none: a step of a call, such as an upload). */
  call?: CallRecord;
  random: Random;
  fault?: FaultKind;
  /** The first attempt's instance. */
  instance: string;
  /** The request, for an instance's base URL. */
  build(base: string): Omit<Outgoing, 'hangUp' | 'timeoutMs'> & { timeoutMs?: number; hangUpAfterMs?: number };
}

/** Sends until the call has an answer an SDK would not retry (or it gives up); the last answer. */
export async function sendUntilAnswered(ctx: DriverContext, sending: Sending): Promise<Answer | undefined> {
  const { call, random, fault } = sending;
  let last: Answer | undefined;
  for (let n = 0; n < MAX_ATTEMPTS && (n === 0 || ctx.clock() < ctx.giveUpAt); n++) {
    const instance = await pickInstance(ctx, random, n === 0 ? sending.instance : undefined);
    const hangUp = n === 0 && fault ? HANG_UPS[fault] : undefined;
    const outgoing: Outgoing = { timeoutMs: 30_000, ...sending.build(instance.base!), ...(hangUp ? { hangUp } : {}) };
    last = await send(outgoing, instance.name, ctx.clock);
    call?.attempts.push(recorded(last));
    if (hangUp && last.failure?.startsWith('client hung up')) {
      // A client that meant to leave before any delta but had one already left after it.
      const met = hangUp === 'before-delta' && last.deltas?.length ? 'client-gone-after-delta' : fault!;
      ctx.faults.note(met, call?.id);
      call?.faults.push(met);
    }
    if (!retryable(last)) return last;
    await sleep(pause(last, random));
  }
  return last;
}

/** Notes a call whose attempts reached both instances (two instances on one database). */
export function noteInstances(ctx: DriverContext, call: CallRecord): void {
  if (new Set(call.attempts.map((attempt) => attempt.instance)).size > 1) {
    ctx.faults.note('two-instances', call.id);
    call.faults.push('two-instances');
  }
}

export const paidHeaders = (secret: string, idempotencyKey: string) => ({
  authorization: `Bearer ${secret}`,
  'content-type': 'application/json',
  'idempotency-key': idempotencyKey,
});

/** A POST that is a step of a call (an upload created or completed, a job cancelled): retried alike, not one of its attempts. */
export function postStep(
  ctx: DriverContext,
  random: Random,
  step: { secret: string; path: string; idempotencyKey: string; body: unknown; instance: string },
): Promise<Answer | undefined> {
  const body = Buffer.from(JSON.stringify(step.body));
  return sendUntilAnswered(ctx, {
    random,
    instance: step.instance,
    build: (base) => ({ method: 'POST', url: `${base}${step.path}`, headers: paidHeaders(step.secret, step.idempotencyKey), body }),
  });
}
