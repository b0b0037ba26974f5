import type { Sale } from '@/server/contract/sale-schema';
import { Field, type Errors } from './form-field';

/** Top-up packs as the form shows them: "1000:10, 5000:40" (units:price). */
export const topUpsForForm = (sale: Sale | undefined) => (sale?.top_ups ?? []).map((pack) => `${pack.units}:${pack.price}`).join(', ');

/** The version's sale through Stripe Checkout (docs/selling.md): empty price, not for sale. */
export function SaleFields(props: { initial?: Sale; errors: Errors }) {
  const { initial, errors } = props;
  return (
    <fieldset>
      <legend>Sale through Stripe Checkout</legend>
      <div className="form-grid">
        <Field name="sale_price" label="Price of a key" errors={errors} hint="what /buy sells this version for; empty: not for sale">
          {(a11y) => <input type="text" inputMode="decimal" {...a11y} defaultValue={initial?.price ?? ''} />}
        </Field>
        <Field name="sale_currency" label="Sale currency" errors={errors} hint="ISO 4217, such as USD or EUR">
          {(a11y) => <input type="text" {...a11y} defaultValue={initial?.currency ?? 'USD'} maxLength={3} autoCapitalize="characters" />}
        </Field>
        <Field name="sale_top_ups" label="Top-up packs" errors={errors} hint="units:price, comma-separated, such as 1000:10, 5000:40">
          {(a11y) => <input type="text" {...a11y} defaultValue={topUpsForForm(initial)} />}
        </Field>
      </div>
    </fieldset>
  );
}
