// What the public selling pages show (the catalogue of /buy, the success page): their view
// contracts, which the server's pages fill and the components render.

/** One package for sale on /buy: its latest version's terms. */
export interface CatalogueEntry {
  packageVersionId: string;
  slug: string;
  name: string;
  version: number;
  quotaUnits: number;
  limits: { requestsPerMinute: number; concurrency: number; maxUploadBytes: number };
  operations: { name: string; units: number }[];
  price: { amount: number; minor: number; currency: string };
  topUps: { units: number; amount: number; minor: number }[];
}

/** What the success page shows of a checkout. */
export type CheckoutPageState =
  | { state: 'unknown' }
  /** Not paid (yet): an asynchronous payment method, Stripe not asked (yet), or it did not answer. */
  | { state: 'processing' }
  /** The Checkout Session expired unpaid. */
  | { state: 'expired' }
  /**
   * Stripe reported another amount or currency, or a paid top-up's key is no longer active (or its
   * balance is full): nothing was issued or added, the operator was alerted.
   */
  | { state: 'refused' }
  | { state: 'revealed'; key: string; prefix: string; packageName: string; units: number }
  | KeyIssued
  | { state: 'topped_up'; prefix: string; units: number };

/**
 * A key issued, its secret not on this page (the next steps, never the secret): shown once already,
 * waiting to be shown in the browser that started the checkout, or deleted unseen after
 * SOLD_SECRET_RETENTION_HOURS.
 */
export interface KeyIssued {
  state: 'key_issued';
  prefix: string;
  packageName: string;
  secret: 'shown' | 'waiting' | 'deleted';
}
