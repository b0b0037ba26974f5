/**
 * The most calls one /api/trpc batch may carry (a larger batch is a 400 before any runs): the
 * dashboard sends a few at a time, and an unbounded batch let one request run thousands.
 */
export const TRPC_MAX_BATCH_SIZE = 10;
