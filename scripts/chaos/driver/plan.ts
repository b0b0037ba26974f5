import type { CallKind, FaultKind } from '../history';
import { Random } from '../random';

// The run's calls, one after the other as its clients ask for them: each call's kind, key and
// fault are drawn from the call's own random stream. Until every kind of fault a call can meet
// has been dealt once in the run, each call gets one it has not met yet; after that 45% of calls
// get one, from a shuffled deck per kind of call (every fault that fits is dealt before any comes
// again). So a short run still meets every kind of fault. The same seed deals the same calls in
// the same order, however the clients interleave.

export interface ChaosKeyPlan {
  name: string;
  /** Whether its package runs text and code on the fake providers. */
  provider: boolean;
  /** Whether its package sells top-ups. */
  sells: boolean;
}

export interface CallPlan {
  index: number;
  /** The Idempotency-Key (unique in the run, the same in every run of the seed). */
  id: string;
  kind: CallKind;
  key: ChaosKeyPlan;
  fault?: FaultKind;
  /** Send it again once answered, to see the same answer. */
  replay: boolean;
  /** The instance its first attempt goes to. */
  instance: 'a' | 'b';
  /** The call's own decisions (drawn first, whatever happens to it). */
  random: Random;
  /** What its client chooses as it goes: pauses between attempts, the instance of a retry. */
  jitter: Random;
}

const WEIGHTS: Record<CallKind, number> = {
  text: 18,
  'text-stream': 26,
  code: 10,
  image: 7,
  speech: 7,
  transcribe: 8,
  video: 10,
  'top-up': 6,
  purchase: 3,
};

/** The faults a call of this kind can meet, on a fake provider or on `local`. */
export function faultsFor(kind: CallKind, provider: boolean): FaultKind[] {
  const json: FaultKind[] = ['client-gone-before-answer'];
  const providerJson: FaultKind[] = [...json, 'provider-error', 'provider-slow', 'provider-truncated', 'provider-timeout'];
  switch (kind) {
    case 'text':
    case 'code':
      return provider ? providerJson : json;
    case 'text-stream':
      return provider
        ? ['client-gone-before-delta', 'client-gone-after-delta', 'provider-error', 'provider-slow', 'stream-cut', 'provider-timeout']
        : ['client-gone-after-delta'];
    case 'image':
    case 'speech':
      return json;
    case 'transcribe':
      return ['client-gone-mid-upload', ...json];
    case 'video':
      return ['webhook-receiver-failed', ...json];
    case 'top-up':
    case 'purchase':
      return ['stripe-duplicate', 'stripe-out-of-order'];
  }
}

const FAULT_RATE = 0.45;

export function callPlanner(seed: number, keys: ChaosKeyPlan[]): () => CallPlan {
  const decks = new Map<string, FaultKind[]>();
  const dealt = new Set<FaultKind>();
  let index = 0;
  const fromDeck = (kind: CallKind, provider: boolean): FaultKind => {
    const name = `${kind}/${provider}`;
    let deck = decks.get(name) ?? [];
    if (deck.length === 0) deck = Random.of(seed, 'deck', name, index).shuffle(faultsFor(kind, provider));
    const [fault, ...rest] = deck;
    decks.set(name, rest);
    return fault!;
  };
  const deal = (random: Random, kind: CallKind, provider: boolean): FaultKind | undefined => {
    const unmet = faultsFor(kind, provider).filter((fault) => !dealt.has(fault));
    const fault = unmet.length ? random.pick(unmet) : random.chance(FAULT_RATE) ? fromDeck(kind, provider) : undefined;
    if (fault) dealt.add(fault);
    return fault;
  };
  return () => {
    const random = Random.of(seed, 'call', index);
    const kind = random.weighted(WEIGHTS);
    const candidates = kind === 'top-up' ? keys.filter((key) => key.sells) : keys;
    const key = random.pick(candidates);
    const fault = deal(random, kind, key.provider);
    const plan: CallPlan = {
      index,
      id: `chaos-${seed}-${index}`,
      kind,
      key,
      fault,
      replay: random.chance(0.2),
      instance: random.chance(0.5) ? 'a' : 'b',
      random,
      jitter: Random.of(seed, 'jitter', index),
    };
    index++;
    return plan;
  };
}
