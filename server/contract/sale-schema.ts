import { z } from 'zod';
import { isChargeableCurrency, priceDecimals } from './stripe-currency';

// A package's `sale` (CONTRACT.md §7, docs/selling.md): what Stripe Checkout charges for a key and its top-up packs.

const salePrice = z.number().positive().max(999_999);
/** Sold through Stripe Checkout (docs/selling.md): the key's price, and packs of units a key may add. */
export const saleSchema = z
  .strictObject({
    // Top-up packs without a price (the form's empty price) are refused naming the price: packs sell only to a key that is sold.
    price: z
      .number({
        error: (issue) => (issue.input === undefined ? 'a sale needs the price of a key (top-up packs sell only with it)' : undefined),
      })
      .positive()
      .max(999_999),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code such as USD', abort: true })
      .refine(isChargeableCurrency, 'currency must be one money is charged in (an ISO 4217 code such as USD)'),
    top_ups: z
      .array(z.strictObject({ units: z.number().int().min(1).max(1_000_000_000), price: salePrice }))
      .max(10)
      .refine(
        (packs) => new Set(packs.map((pack) => pack.units)).size === packs.length,
        'each top-up pack sells a different number of units',
      )
      .default([]),
  })
  .superRefine((sale, ctx) => {
    const decimals = priceDecimals(sale.currency);
    const smallest = 10 ** -decimals;
    const prices = [
      { path: ['price'], value: sale.price },
      ...sale.top_ups.map((pack, i) => ({ path: ['top_ups', i, 'price'], value: pack.price })),
    ];
    for (const { path, value } of prices) {
      if (!(value > 0)) continue; // refused by its own schema already
      // Compared in the price's smallest step, where a float's error is far below one.
      const steps = value * 10 ** decimals;
      if (Math.abs(steps - Math.round(steps)) > 1e-6) {
        ctx.addIssue({ code: 'custom', path, message: `${sale.currency} prices have at most ${decimals} decimals` });
      } else if (Math.round(steps) < 1) {
        ctx.addIssue({ code: 'custom', path, message: `a ${sale.currency} price is at least ${smallest.toFixed(decimals)}` });
      }
    }
  });

export type Sale = z.infer<typeof saleSchema>;
