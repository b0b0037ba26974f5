/** An amount in a currency's major unit (49.5 → "$49.50"). */
export function formatPrice(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
}

/** An amount in a currency's minor unit (cents, as Stripe counts) → "$49.50". */
export function formatMinor(minor: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  return format.format(minor / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** A version's sale in a line: "$49.00 a key; top-ups 1,000 units for $10.00", or "no". */
export function saleSummary(sale: { price: number; currency: string; top_ups: { units: number; price: number }[] } | undefined): string {
  if (!sale) return 'no';
  const packs = sale.top_ups.map((pack) => `${pack.units.toLocaleString('en-US')} units for ${formatPrice(pack.price, sale.currency)}`);
  return `${formatPrice(sale.price, sale.currency)} a key${packs.length > 0 ? `; top-ups ${packs.join(', ')}` : ''}`;
}
