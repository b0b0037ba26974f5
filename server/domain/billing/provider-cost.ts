import { createRequire } from 'node:module';
import type * as GenaiPrices from '@pydantic/genai-prices';
import { CHARS_PER_TOKEN, type EnginePricing, type ModelPrices, type ProviderUsage } from '../../providers/engine';
import { believableQuantity } from '../../providers/usage-bounds';

// What a call cost at its provider, in the deployment's CURRENCY, at the time of the call: the
// operator's prices of the model when set (packages file `prices`, the Providers page), else the
// genai-prices table shipped in @pydantic/genai-prices (read offline, never updated at run time)
// for the token counts of the provider types it knows. Anything else is "unpriced": counted,
// never guessed. The table's prices are in USD; an override is in CURRENCY. See docs/billing.md.

/**
 * The table's calcPrice, the package loaded on the first call (its CommonJS build, synchronously):
 * most processes that import this module never price a call by the table.
 */
const loadPackage = createRequire(import.meta.url);
let tableCalcPrice: typeof GenaiPrices.calcPrice | undefined;
function calcPrice(...args: Parameters<typeof GenaiPrices.calcPrice>): ReturnType<typeof GenaiPrices.calcPrice> {
  tableCalcPrice ??= (loadPackage('@pydantic/genai-prices') as typeof GenaiPrices).calcPrice;
  return tableCalcPrice(...args);
}

/** Provider types whose token prices genai-prices knows, by its provider id. */
const GENAI_PRICES_PROVIDER: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  xai: 'x-ai',
  mistral: 'mistral',
  groq: 'groq',
  deepseek: 'deepseek',
  azure: 'azure',
  'amazon-bedrock': 'aws',
};

/** The provider side of one usage event: what was reported and what it cost. */
export interface Metering {
  usage: ProviderUsage;
  /** Cost in CURRENCY; null when unpriced or when nothing was reported. */
  cost: number | null;
  /** A provider call was made whose model has no known price. */
  unpriced: boolean;
  /** The usage is our estimate, not the provider's figure (a call ended before it reported any). */
  estimated?: boolean;
}

/**
 * The tokens a text call is taken to have used when its provider reported none (it ended early, or
 * the provider reports no usage): its prompt's characters in, the characters it produced out, at CHARS_PER_TOKEN.
 */
export function estimateTextUsage(promptChars: number, producedChars: number): ProviderUsage {
  return { inputTokens: Math.ceil(promptChars / CHARS_PER_TOKEN), outputTokens: Math.ceil(producedChars / CHARS_PER_TOKEN) };
}

const MTOK = 1_000_000;
/** Costs are kept to 10 decimals (the column's scale). */
const round = (value: number) => Math.round(value * 1e10) / 1e10;

const hasTokens = (usage: ProviderUsage) => usage.inputTokens !== undefined || usage.outputTokens !== undefined;

/** The cost of a usage by an operator's prices; null when a reported quantity has no price. */
function costByOverride(usage: ProviderUsage, prices: ModelPrices): number | null {
  let cost = 0;
  let priced = false;
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens ?? 0);
  const parts: [number | undefined, number | undefined][] = [
    [usage.inputTokens !== undefined ? usage.inputTokens - cached : undefined, prices.input_per_mtok],
    [cached || undefined, prices.cached_input_per_mtok ?? prices.input_per_mtok],
    [usage.outputTokens, prices.output_per_mtok],
  ];
  for (const [tokens, perMtok] of parts) {
    if (!tokens) continue;
    if (perMtok === undefined) return null;
    cost += (tokens * perMtok) / MTOK;
    priced = true;
  }
  const media: [number | undefined, number | undefined][] = [
    [usage.characters, prices.per_character],
    [usage.audioSeconds ?? usage.videoSeconds, prices.per_second],
    [usage.images, prices.per_image],
  ];
  for (const [quantity, price] of media) {
    if (quantity === undefined) continue;
    if (price === undefined) {
      // Media priced by tokens (an image model reporting tokens) needs no per-image price.
      if (priced) continue;
      return null;
    }
    cost += quantity * price;
    priced = true;
  }
  return priced ? cost : null;
}

function costByTable(usage: ProviderUsage, pricing: EnginePricing): number | null {
  const providerId = GENAI_PRICES_PROVIDER[pricing.providerType];
  if (!providerId || !hasTokens(usage)) return null;
  try {
    const result = calcPrice(
      { input_tokens: usage.inputTokens ?? 0, output_tokens: usage.outputTokens ?? 0, cache_read_tokens: usage.cachedInputTokens ?? 0 },
      pricing.model,
      { providerId },
    );
    return result ? result.total_price : null;
  } catch (error) {
    // Usage the table refuses to price leaves the answered call unpriced, never failed.
    console.error(`[pricing] ${pricing.providerType}:${pricing.model} could not be priced by the table`, error);
    return null;
  }
}

/** Whether the genai-prices table prices this model's tokens for this provider type. */
export function tableKnowsTokens(providerType: string, model: string): boolean {
  const providerId = GENAI_PRICES_PROVIDER[providerType];
  return providerId !== undefined && calcPrice({ input_tokens: 1, output_tokens: 1 }, model, { providerId }) !== null;
}

const isEmpty = (usage: ProviderUsage) => Object.values(usage).every((value) => value === undefined);

/** Whether a priced call's provider reported nothing of what it used (a metering without any quantity). */
export function reportsNothing(metering: Metering): boolean {
  return isEmpty(metering.usage);
}

/** The most one call may cost (as a price may be, the packages file's `money`): more is a figure no provider meant. */
const MAX_CALL_COST = 1_000_000_000;

/**
 * Prices one engine's call. `pricing` absent: the local engine, which costs nothing. A quantity
 * no call can have (providers/usage-bounds.ts) counts as not reported: it is estimated where a missing one would be.
 */
export function priceCall(pricing: EnginePricing | undefined, usage: ProviderUsage | undefined): Metering {
  const reported = withCachedWithinPrompt(
    Object.fromEntries(
      Object.entries(usage ?? {}).filter(
        ([field, value]) => value !== undefined && believableQuantity(field as keyof ProviderUsage, value),
      ),
    ) as ProviderUsage,
  );
  if (!pricing) return { usage: reported, cost: 0, unpriced: false };
  // A provider that reported nothing (a failed call): nothing to price, and nothing guessed.
  if (isEmpty(reported)) return { usage: reported, cost: null, unpriced: false };
  const cost = pricing.override ? costByOverride(reported, pricing.override) : costByTable(reported, pricing);
  return cost === null || cost > MAX_CALL_COST
    ? { usage: reported, cost: null, unpriced: true }
    : { usage: reported, cost: round(cost), unpriced: false };
}

/**
 * Cached prompt tokens are part of the prompt's: a count past it is believed up to it, and one
 * without a prompt count is not believed (the table refuses such usage outright, which failed an
 * answered call and lost its cost).
 */
function withCachedWithinPrompt(usage: ProviderUsage): ProviderUsage {
  const { cachedInputTokens, inputTokens, ...rest } = usage;
  if (cachedInputTokens === undefined || (inputTokens !== undefined && cachedInputTokens <= inputTokens)) return usage;
  return inputTokens === undefined ? rest : { ...rest, inputTokens, cachedInputTokens: inputTokens };
}

const SUMMED: (keyof ProviderUsage)[] = [
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'characters',
  'audioSeconds',
  'images',
  'videoSeconds',
];

/** The metering of a request that tried several engines: their usage and costs added up. */
export function addMetering(total: Metering | undefined, next: Metering): Metering {
  if (!total) return next;
  const usage: ProviderUsage = { ...total.usage };
  for (const field of SUMMED) {
    const value = next.usage[field] as number | undefined;
    if (value !== undefined) (usage as Record<string, number>)[field] = ((usage[field] as number | undefined) ?? 0) + value;
  }
  if (next.usage.imageSize) usage.imageSize = next.usage.imageSize;
  const cost = total.cost === null && next.cost === null ? null : round((total.cost ?? 0) + (next.cost ?? 0));
  const estimated = Boolean(total.estimated || next.estimated);
  return { usage, cost, unpriced: total.unpriced || next.unpriced, ...(estimated ? { estimated } : {}) };
}

/** The jsonb the settling statement reads (settlement-sql.ts usageEventCte); null when there is none. */
export function meteringJson(metering: Metering | undefined): string | null {
  if (!metering) return null;
  const { usage } = metering;
  return JSON.stringify({
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cached_input_tokens: usage.cachedInputTokens,
    characters: usage.characters,
    audio_seconds: usage.audioSeconds,
    images: usage.images,
    image_size: usage.imageSize,
    video_seconds: usage.videoSeconds,
    provider_cost: metering.cost === null ? undefined : metering.cost.toFixed(10),
    unpriced: metering.unpriced,
    usage_estimated: metering.estimated ?? false,
  });
}
