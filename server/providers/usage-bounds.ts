import { PG_INTEGER_MAX } from '../contract/pg-integer';
import type { ProviderUsage } from './engine';

// What one call's reported usage can be: what its usage event's columns hold (counts are
// PostgreSQL integers, seconds DECIMAL(12, 3)). A provider reporting -500, 2.5 or 1e15 tokens
// lowered a key's budgeted cost of the day, or failed the call's capture and held its units and
// slot until the sweep (engines audit). One rule, read by the engines (a language model's answer
// with such a count is malformed) and by the books (such a quantity counts as not reported).

const COUNTS: ReadonlySet<keyof ProviderUsage> = new Set(['inputTokens', 'outputTokens', 'cachedInputTokens', 'characters', 'images']);
const MAX_SECONDS = 999_999_999.999;

/** Whether a reported quantity of `field` is one a call can have; a field that is no quantity (imageSize) is. */
export function believableQuantity(field: keyof ProviderUsage, value: unknown): boolean {
  if (typeof value !== 'number') return true;
  if (!Number.isFinite(value) || value < 0) return false;
  return COUNTS.has(field) ? Number.isInteger(value) && value <= PG_INTEGER_MAX : value <= MAX_SECONDS;
}
