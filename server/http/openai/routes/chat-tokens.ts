import { estimateTextUsage } from '../../../domain/billing/provider-cost';
import type { EngineReport } from '../../../domain/generation/call-engine';

// A chat completion's `usage` in tokens: the provider's figures where its engine reported them;
// otherwise (the built-in engine, a provider that reported none) an estimate from the characters of
// the prompt and the answer, which the call's usage event records too, marked estimated.

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** Fills the engine report's tokens with the estimate when its engine reported none (before the call settles). */
export function withTokenEstimate(engines: EngineReport, promptChars: number, answerChars: number): void {
  const reported = engines.metering?.usage;
  if (reported?.inputTokens !== undefined && reported.outputTokens !== undefined) return;
  const estimate = estimateTextUsage(promptChars, answerChars);
  engines.metering = {
    usage: { ...reported, ...estimate },
    cost: engines.metering?.cost ?? null,
    unpriced: engines.metering?.unpriced ?? false,
    estimated: true,
  };
}

export function chatUsageOf(engines: EngineReport | undefined): ChatUsage {
  const prompt = engines?.metering?.usage.inputTokens ?? 0;
  const completion = engines?.metering?.usage.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
