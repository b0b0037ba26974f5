import type { Metering } from './provider-cost';

/**
 * What an engine call learned, for its usage event: the engines it went to, in order, the one that
 * answered, and what they used. Billing's own: the call (generation/call-engine.ts) fills it in,
 * the settlement writes it.
 */
export interface EngineReport {
  tried: string[];
  answered?: string;
  /** What the engines that answered reported using, and its cost (added up over fallbacks). */
  metering?: Metering;
  /** Why the engine that answered a text or code call stopped, as the AI SDK unifies it ('stop', 'length', ...); none for `local`. */
  finishReason?: string;
}
