import Stripe from 'stripe';
import { getConfig, type Config } from '../config';

// The one Stripe client of the process, built from the configuration. Selling is on only when
// both the secret key and the webhook signing secret are set (docs/selling.md).

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** STRIPE_API_BASE, when set: the host, port and protocol the SDK calls instead of Stripe's API. */
  apiBase?: string;
}

/** The Stripe settings, or null when selling is off (either secret unset). */
export function stripeSettings(config: Config = getConfig()): StripeSettings | null {
  if (!config.STRIPE_SECRET_KEY || !config.STRIPE_WEBHOOK_SECRET) return null;
  return { secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET, apiBase: config.STRIPE_API_BASE };
}

/** The SDK's options for an API base such as http://127.0.0.1:12111 (its host, port and protocol). */
export function apiBaseOptions(apiBase: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port || (protocol === 'http' ? 80 : 443), protocol };
}

let cached: { secretKey: string; apiBase?: string; client: Stripe } | undefined;

/** The Stripe client, or null when selling is off. */
export function getStripe(): Stripe | null {
  const settings = stripeSettings();
  if (!settings) return null;
  if (cached?.secretKey !== settings.secretKey || cached.apiBase !== settings.apiBase) {
    const client = new Stripe(settings.secretKey, { ...apiBaseOptions(settings.apiBase), maxNetworkRetries: 2, timeout: 20_000 });
    cached = { secretKey: settings.secretKey, apiBase: settings.apiBase, client };
  }
  return cached.client;
}
