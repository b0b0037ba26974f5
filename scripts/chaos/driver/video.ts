import { tagOf } from '../fakes/chat-provider';
import { parseJson } from '../checker/answers';
import type { CallRecord } from '../history';
import type { Random } from '../random';
import { UNITS } from '../stack/packages';
import { noteInstances, paidHeaders, pickInstance, postStep, sendUntilAnswered } from './attempts';
import { newCall, type DriverContext } from './context';
import { send } from './http';
import type { CallPlan } from './plan';

// A video job as a client runs it: submitted (202), polled until it ends, and for some cancelled
// after a while, which lands while it waits, while it runs, or after it ended. Its key's webhook
// endpoint may refuse the job's first event, so the product has to deliver it again.

const TERMINAL = ['succeeded', 'failed', 'cancelled'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /v1/jobs/{id} once; what the job says, if anything answered. */
export async function readJob(ctx: DriverContext, call: CallRecord, secret: string, random: Random): Promise<void> {
  const job = call.job!;
  const instance = await pickInstance(ctx, random);
  const answer = await send(
    { method: 'GET', url: `${instance.base}/v1/jobs/${job.id}`, headers: { authorization: `Bearer ${secret}` }, timeoutMs: 10_000 },
    instance.name,
    ctx.clock,
  );
  const seen = answer.status === 200 ? parseJson(answer.body) : undefined;
  if (!seen) return;
  job.status = String(seen.status);
  job.chargedUnits = (seen.usage as { charged_units?: number } | null)?.charged_units;
}

async function cancel(ctx: DriverContext, plan: CallPlan, call: CallRecord, secret: string, instance: string): Promise<void> {
  const path = `/v1/jobs/${call.job!.id}/cancel`;
  const answer = await postStep(ctx, plan.jitter, {
    secret,
    path,
    idempotencyKey: `${plan.id}-cancel`,
    body: {},
    instance,
  });
  if (answer?.status !== undefined) call.job!.cancel = { status: answer.status, ...(answer.body ? { body: answer.body } : {}) };
}

export async function runVideo(ctx: DriverContext, plan: CallPlan): Promise<void> {
  const key = ctx.keys.get(plan.key.name)!;
  // The call's decisions, drawn before it is sent: where a replay goes, whether and when (after the 202) it is cancelled, where.
  const replayTo = plan.random.pick(['a', 'b']);
  const cancelAfter = plan.random.chance(0.35) ? plan.random.int(100, 2500) : undefined;
  const cancelTo = plan.random.pick(['a', 'b']);
  const call = newCall(ctx, plan, { operation: 'videos.generate', units: UNITS.video, provider: false });
  const body = Buffer.from(JSON.stringify({ prompt: `${tagOf(plan.id)} waves on a pier` }));
  const fault = plan.fault === 'client-gone-before-answer' ? plan.fault : undefined;
  const build = (base: string) => ({
    method: 'POST' as const,
    url: `${base}/v1/videos/generate`,
    headers: paidHeaders(key.secret, plan.id),
    body,
  });
  const submitted = await sendUntilAnswered(ctx, { call, random: plan.jitter, fault, instance: plan.instance, build });
  // Submitted again with the same key, as after a lost answer: the same job, never a second one.
  if (plan.replay && submitted?.status === 202) await sendUntilAnswered(ctx, { call, random: plan.jitter, instance: replayTo, build });
  noteInstances(ctx, call);
  const jobId = submitted?.status === 202 ? parseJson(submitted.body)?.job_id : undefined;
  if (typeof jobId !== 'string') return;
  call.job = { id: jobId, status: 'submitted' };
  if (plan.fault === 'webhook-receiver-failed') ctx.webhooks.failFirst(jobId, plan.id);
  const cancelAt = cancelAfter === undefined ? undefined : ctx.clock() + cancelAfter;
  let cancelled = false;
  while (!TERMINAL.includes(call.job.status ?? '') && ctx.clock() < ctx.giveUpAt) {
    if (cancelAt !== undefined && !cancelled && ctx.clock() >= cancelAt) {
      cancelled = true;
      await cancel(ctx, plan, call, key.secret, cancelTo);
    }
    await sleep(400);
    await readJob(ctx, call, key.secret, plan.jitter);
  }
}
