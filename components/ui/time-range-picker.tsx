import { customRangeProblems, DEFAULT_RANGE_PRESET, RANGE_PRESETS, type RangeInput } from '@/server/contract/dashboard/time-range';
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

/** A page's range and, when the custom range asked for cannot apply, why (the page shows the default meanwhile). */
export interface RangeFromParams {
  /** The range the page shows. */
  value: RangeInput;
  /** The range the URL asked for, kept in the picker so that it can be corrected. */
  asked: RangeInput;
  problems: Partial<Record<'from' | 'to', string>>;
}

/** The range a page's search params ask for; a custom range that cannot apply falls back to the default, saying why. */
export function rangeFromParams(params: Record<string, string | string[] | undefined>): RangeFromParams {
  const range = param(params, 'range', [...RANGE_PRESETS, 'custom'] as const);
  if (range !== 'custom') return { value: { range }, asked: { range }, problems: {} };
  const asked = { range, from: param(params, 'from'), to: param(params, 'to') };
  const problems = customRangeProblems(asked.from, asked.to);
  if (problems.length === 0) return { value: asked, asked, problems: {} };
  return {
    value: {},
    asked,
    problems: Object.fromEntries(
      problems.map((problem) => [problem.path, `${problem.message}; showing the ${LABELS[DEFAULT_RANGE_PRESET]!.toLowerCase()}`]),
    ),
  };
}

export function TimeRangePicker(props: { action: string; range: RangeFromParams; keep?: Record<string, string | undefined> }) {
  const { asked, problems } = props.range;
  const day = (name: 'from' | 'to', label: string) => (
    <div className="field">
      <label htmlFor={`range-${name}`}>{label}</label>
      <input
        id={`range-${name}`}
        name={name}
        type="date"
        defaultValue={asked[name] ?? ''}
        aria-invalid={problems[name] ? true : undefined}
        aria-describedby={problems[name] ? `range-${name}-error` : undefined}
      />
      {problems[name] ? (
        <span className="error" id={`range-${name}-error`} data-testid={`range-${name}-error`}>
          {problems[name]}
        </span>
      ) : null}
    </div>
  );
  return (
    // autoComplete off: after back or forward the browser would put back the fields' last values, not the page's.
    <form className="filters" method="get" action={props.action} aria-label="Choose the time range" autoComplete="off">
      {Object.entries(props.keep ?? {}).map(([name, value]) =>
        value ? <input key={name} type="hidden" name={name} value={value} /> : null,
      )}
      <div className="field">
        <label htmlFor="range-preset">Time range</label>
        <select id="range-preset" name="range" defaultValue={asked.range ?? DEFAULT_RANGE_PRESET}>
          {[...RANGE_PRESETS, 'custom'].map((value) => (
            <option key={value} value={value}>
              {LABELS[value]}
            </option>
          ))}
        </select>
      </div>
      {day('from', 'From')}
      {day('to', 'To')}
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
