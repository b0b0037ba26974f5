// Billing's statements name their helper from here; it lives with the pool, for every area's statements.
export { prepared } from '../../db/named-statement';
