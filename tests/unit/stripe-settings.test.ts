import { afterEach, describe, expect, it } from 'vitest';
import { readConfig, resetConfigForTests } from '@/server/config';
import { dashboardPolicy } from '@/server/http/content-security-policy';
import { apiBaseOptions, stripeSettings } from '@/server/payments/stripe-client';

// Selling is off until both Stripe secrets are set (issue 38 point 1); STRIPE_API_BASE gives the
// SDK its host, port and protocol; the pages' form-action lets /buy's form go on to Stripe.

const env = (extra: Record<string, string>) => readConfig({ ...extra } as NodeJS.ProcessEnv);

describe('Stripe settings', () => {
  it('are off unless both the secret key and the webhook secret are set', () => {
    expect(stripeSettings(env({}))).toBeNull();
    // Half of the pair is refused at start rather than leaving selling off without a word.
    expect(() => env({ STRIPE_SECRET_KEY: 'sk_test_abc' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together/,
    );
    expect(() => env({ STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow(
      /STRIPE_SECRET_KEY: STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set together/,
    );
    expect(stripeSettings(env({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }))).toEqual({
      secretKey: 'sk_test_abc',
      webhookSecret: 'whsec_abc',
      apiBase: undefined,
    });
  });

  it('refuse values that are not Stripe secrets, naming the variable', () => {
    expect(() => env({ STRIPE_SECRET_KEY: 'pk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow(
      /STRIPE_SECRET_KEY: must be a Stripe secret key/,
    );
    expect(() => env({ STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: must be the webhook endpoint's signing secret/,
    );
    expect(() => env({ STRIPE_API_BASE: 'ftp://127.0.0.1' })).toThrow(/STRIPE_API_BASE/);
  });

  it('point the SDK at another API base by host, port and protocol', () => {
    expect(apiBaseOptions(undefined)).toEqual({});
    expect(apiBaseOptions('http://127.0.0.1:12111')).toEqual({ host: '127.0.0.1', port: '12111', protocol: 'http' });
    expect(apiBaseOptions('https://stripe.internal')).toEqual({ host: 'stripe.internal', port: 443, protocol: 'https' });
  });
});

describe("the pages' form-action", () => {
  afterEach(() => {
    delete process.env.STRIPE_SECRET_KEY;
    delete process.env.STRIPE_WEBHOOK_SECRET;
    delete process.env.STRIPE_API_BASE;
    resetConfigForTests();
  });

  it("names Stripe's checkout (and a test API base) only when selling is configured", () => {
    expect(dashboardPolicy('n', false)).toMatch(/form-action 'self'(;|$)/);
    process.env.STRIPE_SECRET_KEY = 'sk_test_abc';
    process.env.STRIPE_WEBHOOK_SECRET = 'whsec_abc';
    process.env.STRIPE_API_BASE = 'http://127.0.0.1:4204';
    resetConfigForTests(); // the policy reads the configuration, read once
    expect(dashboardPolicy('n', false)).toContain("form-action 'self' https://checkout.stripe.com http://127.0.0.1:4204");
  });
});
