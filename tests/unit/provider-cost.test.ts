import { describe, expect, it } from 'vitest';
import { priceCall } from '@/server/domain/billing/provider-cost';

// The books believe a provider's figures only within what one call can use: a quantity past them
// counts as not reported (estimated where a missing one would be), a cost past any price as unpriced.

const pricing = {
  providerType: 'openai-compatible',
  model: 'm',
  override: { input_per_mtok: 1000, output_per_mtok: 2000, per_image: 1e9 },
};

describe('priceCall', () => {
  it('prices what a call can use', () => {
    expect(priceCall(pricing, { inputTokens: 5, outputTokens: 7 })).toEqual({
      usage: { inputTokens: 5, outputTokens: 7 },
      cost: 0.019,
      unpriced: false,
    });
  });

  it('drops a negative, infinite or past-integer quantity, as if it had not been reported', () => {
    expect(priceCall(pricing, { inputTokens: -500, outputTokens: 7 })).toEqual({
      usage: { outputTokens: 7 },
      cost: 0.014,
      unpriced: false,
    });
    expect(priceCall(pricing, { inputTokens: 1e15, outputTokens: Number.POSITIVE_INFINITY })).toEqual({
      usage: {},
      cost: null,
      unpriced: false,
    });
  });

  it("holds each quantity to its column: counts are whole and at most an integer's, seconds at most DECIMAL(12, 3)'s", () => {
    const seconds = { ...pricing, override: { per_second: 0.01 } };
    expect(priceCall(pricing, { inputTokens: 2.5, outputTokens: 7 }).usage).toEqual({ outputTokens: 7 });
    expect(priceCall(seconds, { audioSeconds: 12.345 })).toEqual({ usage: { audioSeconds: 12.345 }, cost: 0.12345, unpriced: false });
    expect(priceCall(seconds, { videoSeconds: 1.5e9 }).usage).toEqual({});
  });

  it('leaves a cost past any price unpriced (it could not be kept in the books)', () => {
    expect(priceCall(pricing, { images: 2 })).toEqual({ usage: { images: 2 }, cost: null, unpriced: true });
  });

  it('believes cached prompt tokens only up to the prompt: more are cut to it, none without a prompt count', () => {
    const table = { providerType: 'openai', model: 'gpt-4o-mini' };
    const cut = priceCall(table, { inputTokens: 100, cachedInputTokens: 900, outputTokens: 10 });
    expect(cut.usage).toEqual({ inputTokens: 100, cachedInputTokens: 100, outputTokens: 10 });
    expect(cut.cost).toBe(priceCall(table, { inputTokens: 100, cachedInputTokens: 100, outputTokens: 10 }).cost);
    expect(cut.cost).toBeGreaterThan(0);
    expect(priceCall(table, { cachedInputTokens: 5, outputTokens: 10 }).usage).toEqual({ outputTokens: 10 });
    expect(priceCall(pricing, { inputTokens: 5, cachedInputTokens: 5, outputTokens: 7 }).usage).toEqual({
      inputTokens: 5,
      cachedInputTokens: 5,
      outputTokens: 7,
    });
  });
});
