import { formatNumber } from '../ui/format';

/** Remaining units against the key's total (its quota, extra units and top-ups), as a bar. */
export function UnitsBar(props: { remaining: number; total: number; testId?: string }) {
  const total = Math.max(props.total, props.remaining);
  const ratio = total > 0 ? props.remaining / total : 0;
  const tone = props.remaining === 0 ? ' empty' : ratio < 0.1 ? ' low' : '';
  return (
    <div className="units-bar" data-testid={props.testId}>
      <div
        className="track"
        role="meter"
        aria-label="Remaining units"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={props.remaining}
        aria-valuetext={`${formatNumber(props.remaining)} of ${formatNumber(total)} units remaining`}
      >
        <div className={`fill${tone}`} style={{ width: `${Math.round(ratio * 1000) / 10}%` }} />
      </div>
      <span className="caption">
        {formatNumber(props.remaining)} of {formatNumber(total)}
      </span>
    </div>
  );
}
