import { tagOf } from '../fakes/chat-provider';
import type { CallKind } from '../history';
import { Random } from '../random';
import { UNITS } from '../stack/packages';
import { noteInstances, paidHeaders, sendUntilAnswered } from './attempts';
import { newCall, type DriverContext } from './context';
import type { Answer } from './http';
import type { CallPlan } from './plan';

// The synchronous generations: text as JSON and as a stream, code, images and speech. Each call's
// prompt carries its tag (the fakes' way of knowing it), its provider fault is planned with the
// fake before it is sent, and once answered it may be sent again to see the same answer.

const WORDS = ['ledger', 'harbour', 'quiet', 'signal', 'copper', 'lantern', 'orbit', 'meadow', 'thread', 'summit', 'ember', 'tide'];

/** The fake provider's answer to a call: words of its own, or a code object. */
function replyFor(seed: number, callId: string, kind: CallKind): string {
  const random = Random.of(seed, 'reply', callId);
  const words = Array.from({ length: random.int(6, 14) }, () => random.pick(WORDS));
  if (kind === 'code') return JSON.stringify({ code: `export const words = ${JSON.stringify(words)};`, explanation: words.join(' ') });
  return `${words.join(' ')}.`;
}

interface Shape {
  path: string;
  operation: string;
  units: number;
  body: (tag: string) => Record<string, unknown>;
}

const SHAPES: Partial<Record<CallKind, Shape>> = {
  text: {
    path: '/v1/text/generate',
    operation: 'text.generate',
    units: UNITS.text,
    body: (tag) => ({ input: `${tag} Describe a harbour.`, output_format: 'text' }),
  },
  'text-stream': {
    path: '/v1/text/generate',
    operation: 'text.generate',
    units: UNITS.text,
    body: (tag) => ({ input: `${tag} Tell a short story.` }),
  },
  code: {
    path: '/v1/code/generate',
    operation: 'code.generate',
    units: UNITS.code,
    body: (tag) => ({ input: `${tag} A constant.`, language: 'typescript' }),
  },
  image: {
    path: '/v1/images/generate',
    operation: 'images.generate',
    units: UNITS.image,
    body: (tag) => ({ prompt: `${tag} a lighthouse at dusk`, output_format: 'png' }),
  },
  speech: {
    path: '/v1/audio/speech',
    operation: 'audio.speech',
    units: UNITS.speech,
    body: (tag) => ({ text: `${tag} Hello there.`, voice: 'alloy', output_format: 'wav' }),
  },
};

/** The call's decisions, drawn before it is sent (the same whatever happens to it). */
function decide(plan: CallPlan) {
  const { random } = plan;
  return {
    cutAfter: random.int(1, 3),
    errorStatus: random.pick([500, 503, 429]),
    replayAsStream: random.chance(0.5),
    replayTo: random.pick(['a', 'b']),
  };
}

export async function runGeneration(ctx: DriverContext, plan: CallPlan): Promise<void> {
  const shape = SHAPES[plan.kind]!;
  const key = ctx.keys.get(plan.key.name)!;
  const provider = plan.key.provider && ['text', 'text-stream', 'code'].includes(plan.kind);
  const decided = decide(plan);
  // The call's provider fault (and reply) planned with the fake provider.
  const { cutAfter, errorStatus } = decided;
  if (provider) ctx.chat.plan(plan.id, { fault: plan.fault, reply: replyFor(ctx.seed, plan.id, plan.kind), cutAfter, errorStatus });
  const call = newCall(ctx, plan, { operation: shape.operation, units: shape.units, provider });
  const body = Buffer.from(JSON.stringify(shape.body(tagOf(plan.id))));
  const stream = plan.kind === 'text-stream';
  const build = (base: string, accept = stream) => ({
    method: 'POST' as const,
    url: `${base}${shape.path}`,
    headers: { ...paidHeaders(key.secret, plan.id), ...(accept ? { accept: 'text/event-stream' } : {}) },
    body,
    stream: accept,
    hangUpAfterMs: provider ? 300 : 0,
  });
  const last = await sendUntilAnswered(ctx, { call, random: plan.jitter, fault: plan.fault, instance: plan.instance, build });
  if (plan.replay && answered(last)) {
    // Sent again as a client that lost the answer would, a stream sometimes asked for as JSON.
    const asStream = stream && decided.replayAsStream;
    await sendUntilAnswered(ctx, { call, random: plan.jitter, instance: decided.replayTo, build: (base) => build(base, asStream) });
  }
  noteInstances(ctx, call);
}

const answered = (answer: Answer | undefined) => answer?.status === 200 && (answer.body !== undefined || answer.ending === 'done');
