import { ApiError } from '../errors';

// The answer to a paid request of a key that spent its package's provider-cost budget
// (limits.max_provider_cost_per_day) for the UTC day, counting its queued jobs' expected cost:
// CONTRACT.md §3 step 9's 429 with `details.reason: "budget"`, until the next UTC midnight.

/** The key spent its package's provider-cost budget for the UTC day: 429 until the next UTC midnight. */
export function budgetRefusal(now = Date.now()): ApiError {
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return new ApiError('rate_limited', {
    message: "This key reached its package's provider cost budget for the day (UTC). Retry after midnight UTC.",
    retryAfter: Math.max(1, Math.ceil((midnight.getTime() - now) / 1000)),
    details: { reason: 'budget' },
  });
}
