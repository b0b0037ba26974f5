import { SIZE_UNITS, sizeForForm } from './version-fields';

/** A size typed as an amount and a unit (MiB or GiB); the form reads `<name>` and `<unitName>`. */
export function SizeInput(props: { a11y: object; bytes: number | undefined; unitName: string; unitLabel: string }) {
  const initial = sizeForForm(props.bytes);
  return (
    <span className="size-input">
      <input type="text" inputMode="decimal" {...props.a11y} defaultValue={initial.amount} />
      <select name={props.unitName} aria-label={props.unitLabel} defaultValue={initial.unit}>
        {Object.keys(SIZE_UNITS).map((unit) => (
          <option key={unit} value={unit}>
            {unit}
          </option>
        ))}
      </select>
    </span>
  );
}
