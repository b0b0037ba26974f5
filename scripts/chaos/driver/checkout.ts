import type { PaymentRecord } from '../history';
import { TOP_UP_UNITS } from '../stack/packages';
import type { ProductProcess } from '../stack/processes';
import { pickInstance } from './attempts';
import { newCall, type DriverContext } from './context';
import { send, type Outgoing } from './http';
import type { CallPlan } from './plan';

// Buying through Stripe Checkout as a customer's browser does: a top-up from the portal (sign in
// with the key, buy a pack, pay, come back) and a key from /buy (start, pay, see the key once).
// Stripe's events reach the product as planned: once, twice at once on both instances, or out of
// order (an asynchronous payment's success before the stale `completed`), racing the buyer's return.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A browser's request to one instance (its Origin that instance's), kept as an attempt of the call. */
async function browse(
  ctx: DriverContext,
  call: ReturnType<typeof newCall>,
  instance: ProductProcess,
  outgoing: Omit<Outgoing, 'timeoutMs'>,
) {
  const answer = await send(
    { timeoutMs: 20_000, ...outgoing, headers: { origin: instance.base!, ...outgoing.headers } },
    instance.name,
    ctx.clock,
  );
  call.attempts.push({
    startedAt: answer.startedAt,
    endedAt: answer.endedAt,
    instance: answer.instance,
    ...(answer.status ? { status: answer.status } : {}),
  });
  return answer;
}

const cookieOf = (setCookie: string | string[] | undefined) => [setCookie ?? []].flat()[0]?.split(';')[0] ?? '';

/** Pays the session and delivers its events the way the plan says; resolves once Stripe is done. */
async function payAndDeliver(ctx: DriverContext, plan: CallPlan, payment: PaymentRecord): Promise<void> {
  const { fake } = ctx.stripe;
  const instances = ctx.instances;
  if (plan.fault === 'stripe-out-of-order') {
    fake.pay(payment.sessionId, { async: true });
    const stale = fake.events.completed(payment.sessionId);
    const succeeded = fake.events.asyncSucceeded(payment.sessionId);
    payment.paid = true;
    await ctx.stripe.deliver(succeeded, payment, instances);
    await ctx.stripe.deliver(stale, payment, instances);
    ctx.faults.note('stripe-out-of-order', plan.id);
    return;
  }
  fake.pay(payment.sessionId);
  payment.paid = true;
  const completed = fake.events.completed(payment.sessionId);
  if (plan.fault === 'stripe-duplicate') {
    await Promise.all([
      ctx.stripe.deliver(completed, payment, instances),
      ctx.stripe.deliver(completed, payment, [...instances].reverse()),
    ]);
    ctx.faults.note('stripe-duplicate', plan.id);
    return;
  }
  await ctx.stripe.deliver(completed, payment, instances);
}

/** Whether the buyer comes back before Stripe's events (then both race to fulfil), and how soon: drawn first. */
const returnOf = (plan: CallPlan) => ({ first: plan.random.chance(0.5), afterMs: plan.random.int(0, 50) });

export async function runTopUp(ctx: DriverContext, plan: CallPlan): Promise<void> {
  const key = ctx.keys.get(plan.key.name)!;
  const call = newCall(ctx, plan, { operation: 'checkout', units: TOP_UP_UNITS, provider: false });
  if (plan.fault) call.faults.push(plan.fault);
  const back = returnOf(plan);
  const instance = await pickInstance(ctx, plan.jitter, plan.instance);
  const json = { 'content-type': 'application/json' };
  const signIn = await browse(ctx, call, instance, {
    method: 'POST',
    url: `${instance.base}/api/portal/session`,
    headers: json,
    body: Buffer.from(JSON.stringify({ secret: key.secret })),
  });
  const cookie = cookieOf(signIn.headers['set-cookie']);
  if (signIn.status !== 200 || !cookie) return;
  const trpc = (procedure: string, input: unknown) =>
    browse(ctx, call, instance, {
      method: 'POST',
      url: `${instance.base}/api/portal/trpc/${procedure}`,
      headers: { ...json, cookie },
      body: Buffer.from(JSON.stringify(input)),
    });
  const started = await trpc('buyTopUp', { units: TOP_UP_UNITS });
  const url = (JSON.parse(started.body ?? '{}') as { result?: { data?: { url?: string } } }).result?.data?.url;
  if (started.status !== 200 || !url) return;
  const payment: PaymentRecord = {
    sessionId: url.split('/').at(-1)!,
    kind: 'top-up',
    key: key.name,
    units: TOP_UP_UNITS,
    paid: false,
    deliveries: [],
  };
  ctx.history.payments.push(payment);
  const comeBack = () => trpc('topUpReturn', { sessionId: payment.sessionId });
  if (back.first) await Promise.all([payAndDeliver(ctx, plan, payment), sleep(back.afterMs).then(comeBack)]);
  else await payAndDeliver(ctx, plan, payment).then(comeBack);
}

export async function runPurchase(ctx: DriverContext, plan: CallPlan, versionId: string, units: number): Promise<void> {
  const call = newCall(ctx, plan, { operation: 'checkout', units, provider: false });
  if (plan.fault) call.faults.push(plan.fault);
  const back = returnOf(plan);
  const instance = await pickInstance(ctx, plan.jitter, plan.instance);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = Buffer.from(new URLSearchParams({ package_version_id: versionId }).toString());
  const started = await browse(ctx, call, instance, { method: 'POST', url: `${instance.base}/buy/checkout`, headers: form, body });
  const location = started.headers.location;
  const cookie = cookieOf(started.headers['set-cookie']);
  if (started.status !== 303 || typeof location !== 'string' || !cookie) return;
  const payment: PaymentRecord = { sessionId: location.split('/').at(-1)!, kind: 'key', units, paid: false, deliveries: [] };
  ctx.history.payments.push(payment);
  const success = () =>
    browse(ctx, call, instance, {
      method: 'GET',
      url: `${instance.base}/buy/success?session_id=${payment.sessionId}`,
      headers: { cookie },
    });
  if (back.first) await Promise.all([payAndDeliver(ctx, plan, payment), sleep(back.afterMs).then(success)]);
  else await payAndDeliver(ctx, plan, payment).then(success);
}
