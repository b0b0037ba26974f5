import { fromMinorUnits } from '@/server/contract/stripe-currency';

/** An amount in a currency's major unit (49.5 → "$49.50"). */
export function formatPrice(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
}

/** An amount as Stripe counts it (cents; hundredths of a forint) → "$49.50". */
export function formatMinor(minor: number, currency: string): string {
  return formatPrice(fromMinorUnits(minor, currency), currency);
}

/** A version's sale in a line: "$49.00 a key; top-ups 1,000 units for $10.00", or "no". */
export function saleSummary(sale: { price: number; currency: string; top_ups: { units: number; price: number }[] } | undefined): string {
  if (!sale) return 'no';
  const packs = sale.top_ups.map((pack) => `${pack.units.toLocaleString('en-US')} units for ${formatPrice(pack.price, sale.currency)}`);
  return `${formatPrice(sale.price, sale.currency)} a key${packs.length > 0 ? `; top-ups ${packs.join(', ')}` : ''}`;
}
