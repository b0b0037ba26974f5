import type Stripe from 'stripe';

// Checkout Sessions through the official SDK: created with the price of the package version
// (price_data, mode payment) and read back as a plain record the domain understands.

export interface NewCheckout {
  purchaseId: string;
  kind: 'package' | 'top_up';
  packageVersionId: string;
  /** What the buyer sees on Stripe's page. */
  productName: string;
  description: string;
  /** In the currency's minor unit. */
  amount: number;
  currency: string;
  successUrl: string;
  cancelUrl: string;
}

/** What the domain needs of a Checkout Session. */
export interface CheckoutOutcome {
  sessionId: string;
  purchaseId: string | null;
  /** Stripe's payment_status: paid, unpaid or no_payment_required. */
  paymentStatus: string;
  /** Stripe's status: open, complete or expired. */
  status: string | null;
  amountTotal: number | null;
  currency: string | null;
  email: string | null;
  customerId: string | null;
  paymentIntentId: string | null;
  receiptUrl: string | null;
}

export interface CreatedCheckout {
  id: string;
  url: string;
  /** When Stripe expires the session unpaid (its expires_at). */
  expiresAt: Date;
}

export async function createCheckoutSession(stripe: Stripe, checkout: NewCheckout): Promise<CreatedCheckout> {
  const metadata = { purchase_id: checkout.purchaseId, package_version_id: checkout.packageVersionId, kind: checkout.kind };
  const session = await stripe.checkout.sessions.create(
    {
      mode: 'payment',
      client_reference_id: checkout.purchaseId,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: checkout.currency.toLowerCase(),
            unit_amount: checkout.amount,
            product_data: { name: checkout.productName, description: checkout.description },
          },
        },
      ],
      // A customer record for every buyer, so the key names who bought it.
      customer_creation: 'always',
      metadata,
      payment_intent_data: { metadata },
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
    },
    // A retried create (network) makes one session, not two.
    { idempotencyKey: `checkout-${checkout.purchaseId}` },
  );
  if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
  return { id: session.id, url: session.url, expiresAt: new Date(session.expires_at * 1000) };
}

/** The session as Stripe has it now, with its charge's receipt URL when paid. */
export async function retrieveCheckoutSession(stripe: Stripe, sessionId: string): Promise<CheckoutOutcome> {
  const session = await stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent.latest_charge'] });
  return checkoutOutcome(session);
}

export function checkoutOutcome(session: Stripe.Checkout.Session): CheckoutOutcome {
  const intent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  const charge = intent && typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  return {
    sessionId: session.id,
    purchaseId: session.metadata?.purchase_id ?? session.client_reference_id ?? null,
    paymentStatus: session.payment_status,
    status: session.status,
    amountTotal: session.amount_total,
    currency: session.currency ? session.currency.toUpperCase() : null,
    email: session.customer_details?.email ?? session.customer_email ?? null,
    customerId: typeof session.customer === 'string' ? session.customer : (session.customer?.id ?? null),
    paymentIntentId: typeof session.payment_intent === 'string' ? session.payment_intent : (intent?.id ?? null),
    receiptUrl: charge?.receipt_url ?? null,
  };
}
