import { startFakeStripe, type FakeStripe, type SignedDelivery } from '../../../fakes/fake-stripe';
import type { PaymentRecord } from '../history';
import type { ProductProcess } from '../stack/processes';

// The fake Stripe of the run (fakes/fake-stripe.ts, the tests' own) and Stripe's side of a
// payment: its events delivered to the product's webhook, signed, on any instance that is up, and
// delivered again until answered 2xx, as Stripe does.

export interface ChaosStripe {
  fake: FakeStripe;
  /** Delivers one event until an instance answers 2xx (or 20 tries); the deliveries go into `payment`. */
  deliver(delivery: SignedDelivery, payment: PaymentRecord, instances: ProductProcess[]): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startChaosStripe(webhookSecret: string): Promise<ChaosStripe> {
  const fake = await startFakeStripe({ webhookSecret });
  return {
    fake,
    async deliver(delivery, payment, instances) {
      for (let n = 0; n < 20; n++) {
        const up = instances.filter((instance) => instance.up);
        const instance = up[n % Math.max(1, up.length)];
        let status = 0;
        if (instance) status = await fake.deliver(delivery, `${instance.base}/api/stripe/webhook`).catch(() => 0);
        payment.deliveries.push({ type: delivery.event.type, status });
        if (status >= 200 && status < 300) return;
        await sleep(300);
      }
    },
    close: () => fake.close(),
  };
}
