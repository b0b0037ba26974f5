/** The largest PostgreSQL `integer` (versions, unit balances): a number past it names no row and fits no column. */
export const PG_INTEGER_MAX = 2_147_483_647;
