import type Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { readConfig } from '@/server/config';
import { mailSettings } from '@/server/mail/mailer';
import { newConfirmationCode, normaliseCode } from '@/server/domain/portal/confirm-change';
import { maskEmail } from '@/server/domain/portal/portal-settings';
import { paymentMismatch } from '@/server/domain/sales/fulfil-checkout';
import { unitsRefunded } from '@/server/domain/sales/payment-reversals';
import type { CheckoutOutcome } from '@/server/payments/checkout-sessions';
import { salesEventOf } from '@/server/payments/webhook-events';

// The pure rules behind selling's abuse controls and the portal's e-mail confirmation.

const outcome = (amountTotal: number | null, currency: string | null): CheckoutOutcome => ({
  sessionId: 'cs_test_x',
  purchaseId: null,
  paymentStatus: 'paid',
  status: 'complete',
  amountTotal,
  currency,
  email: null,
  customerId: null,
  paymentIntentId: null,
  receiptUrl: null,
});

describe('fulfilment compares the payment with the purchase', () => {
  it('accepts only the amount and currency asked', () => {
    const purchase = { amount: 4900, currency: 'USD' };
    expect(paymentMismatch(purchase, outcome(4900, 'USD'))).toBeNull();
    expect(paymentMismatch(purchase, outcome(4900, 'usd'))).toBeNull();
    expect(paymentMismatch(purchase, outcome(4899, 'USD'))).toBe('amount 4899 instead of 4900 (minor units)');
    expect(paymentMismatch(purchase, outcome(0, 'USD'))).toBe('amount 0 instead of 4900 (minor units)');
    expect(paymentMismatch(purchase, outcome(null, 'USD'))).toBe('amount none instead of 4900 (minor units)');
    expect(paymentMismatch(purchase, outcome(4900, 'EUR'))).toBe('currency EUR instead of USD');
    expect(paymentMismatch(purchase, outcome(4900, null))).toBe('currency none instead of USD');
  });
});

describe("a refunded top-up's units", () => {
  it('are the share the refund stands for, all of them for a full refund', () => {
    expect(unitsRefunded(1000, 1000, 0)).toBe(0);
    expect(unitsRefunded(1000, 1000, 500)).toBe(500);
    expect(unitsRefunded(1000, 3000, 1000)).toBe(333);
    expect(unitsRefunded(1000, 3000, 2999)).toBe(999);
    expect(unitsRefunded(1000, 3000, 3000)).toBe(1000);
    expect(unitsRefunded(1000, 3000, 4000)).toBe(1000);
    expect(unitsRefunded(1000, 0, 100)).toBe(0);
  });
});

describe('Stripe events selling acts on', () => {
  const event = (type: string, object: Record<string, unknown>) => ({ type, data: { object } }) as unknown as Stripe.Event;
  it('reads an expired session, and a dispute with its id and payment intent', () => {
    expect(salesEventOf(event('checkout.session.expired', { id: 'cs_test_1' }))).toEqual({ type: 'expired', sessionId: 'cs_test_1' });
    expect(
      salesEventOf(event('charge.dispute.created', { id: 'dp_1', charge: 'ch_1', payment_intent: { id: 'pi_1' }, reason: 'fraudulent' })),
    ).toEqual({ type: 'dispute', paymentIntentId: 'pi_1', chargeId: 'ch_1', disputeId: 'dp_1', reason: 'fraudulent' });
    expect(salesEventOf(event('charge.dispute.created', { id: 'dp_2', charge: 'ch_2', payment_intent: null, reason: 'x' }))).toMatchObject({
      type: 'ignored',
    });
  });

  it("marks a signed event whose fields are not of Stripe's types malformed (refused 400, not a 500 Stripe retries for days)", () => {
    const malformed = { type: 'malformed', stripeType: expect.any(String) };
    const refund = (amount_refunded: unknown) => event('charge.refunded', { id: 'ch_1', payment_intent: 'pi_1', amount_refunded });
    expect(salesEventOf(refund(500))).toEqual({ type: 'refund', paymentIntentId: 'pi_1', amountRefunded: 500, chargeId: 'ch_1' });
    for (const amount of ['lots', 1e30, -1, 1.5, null]) expect(salesEventOf(refund(amount))).toEqual(malformed);
    // An expanded field whose id is no string is no id: the event is ignored (no payment intent) or malformed.
    expect(salesEventOf(event('charge.refunded', { id: 'ch_1', payment_intent: { id: 5 }, amount_refunded: 5 }))).toMatchObject({
      type: 'ignored',
    });
    for (const bad of [
      { id: 'dp_1', charge: { id: 7 } },
      { id: 7, charge: 'ch_1' },
    ]) {
      expect(salesEventOf(event('charge.dispute.created', { ...bad, payment_intent: 'pi_1', reason: 'x' }))).toEqual(malformed);
    }
    expect(salesEventOf({ type: 'charge.refunded', data: { object: null } } as unknown as Stripe.Event)).toEqual(malformed);
    // A signed body that is no event object at all names no type (it said "The undefined event"; sales audit).
    for (const body of [[], null, 5, 'x'])
      expect(salesEventOf(body as unknown as Stripe.Event)).toEqual({ type: 'malformed', stripeType: '' });
  });
});

describe('confirmation codes', () => {
  it('are 8 characters of an alphabet without look-alikes, typed in any case, with or without the dash', () => {
    const codes = new Set(Array.from({ length: 200 }, () => newConfirmationCode()));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    expect(normaliseCode(' abcd-efgh ')).toBe('ABCDEFGH');
    expect(normaliseCode('ABCD EFGH')).toBe('ABCDEFGH');
  });

  it("show the buyer's address masked", () => {
    expect(maskEmail('buyer@example.com')).toBe('b•••@example.com');
    expect(maskEmail('not-an-address')).toBe('•••');
  });
});

const env = (values: Record<string, string>) => readConfig({ ...values } as NodeJS.ProcessEnv);

describe('mail settings', () => {
  it('are on only with SMTP_URL and MAIL_FROM; SMTP_URL alone is refused at start', () => {
    expect(mailSettings(env({}))).toBeNull();
    const config = env({ SMTP_URL: 'smtps://u:p@smtp.example.com:465', MAIL_FROM: 'A <a@example.com>' });
    expect(mailSettings(config)).toEqual({ url: 'smtps://u:p@smtp.example.com:465', from: 'A <a@example.com>' });
    expect(() => env({ SMTP_URL: 'smtp://127.0.0.1:25' })).toThrow(/MAIL_FROM: is required with SMTP_URL/);
    expect(() => env({ SMTP_URL: 'http://smtp.example.com', MAIL_FROM: 'a@example.com' })).toThrow(/SMTP_URL/);
  });
});
