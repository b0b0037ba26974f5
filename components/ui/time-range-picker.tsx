import { RANGE_PRESETS, type RangeInput } from '@/server/contract/dashboard/time-range';
import { param } from './format';

// The dashboard's time range lives in the URL (?range=7d, or ?range=custom&from=…&to=…): a
// plain GET form, so it works without JavaScript and a link shares the same view.

const LABELS: Record<string, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '14d': 'Last 14 days',
  '30d': 'Last 30 days',
  custom: 'Custom (UTC days)',
};

/** The range a page's search params ask for; anything malformed falls back to the default. */
export function rangeFromParams(params: Record<string, string | string[] | undefined>): RangeInput {
  const range = param(params, 'range', [...RANGE_PRESETS, 'custom'] as const);
  if (range !== 'custom') return { range };
  const from = param(params, 'from');
  const to = param(params, 'to');
  const isDay = (value: string | undefined) => Boolean(value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)));
  return isDay(from) && isDay(to) && from! <= to! ? { range, from, to } : {};
}

export function TimeRangePicker(props: { action: string; value: RangeInput; keep?: Record<string, string | undefined> }) {
  const current = props.value.range ?? '14d';
  return (
    <form className="filters" method="get" action={props.action} aria-label="Choose the time range">
      {Object.entries(props.keep ?? {}).map(([name, value]) =>
        value ? <input key={name} type="hidden" name={name} value={value} /> : null,
      )}
      <div className="field">
        <label htmlFor="range-preset">Time range</label>
        <select id="range-preset" name="range" defaultValue={current}>
          {[...RANGE_PRESETS, 'custom'].map((value) => (
            <option key={value} value={value}>
              {LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="range-from">From</label>
        <input id="range-from" name="from" type="date" defaultValue={props.value.from ?? ''} />
      </div>
      <div className="field">
        <label htmlFor="range-to">To</label>
        <input id="range-to" name="to" type="date" defaultValue={props.value.to ?? ''} />
      </div>
      <div className="actions">
        <button className="button" type="submit">
          Show
        </button>
      </div>
    </form>
  );
}

/** The range as search params, for links that keep it. */
export function rangeQuery(value: RangeInput): string {
  const query = new URLSearchParams();
  if (value.range) query.set('range', value.range);
  if (value.range === 'custom' && value.from && value.to) {
    query.set('from', value.from);
    query.set('to', value.to);
  }
  return query.toString();
}
