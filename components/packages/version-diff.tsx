import type { VersionChange } from '@/server/trpc/outputs';
import { formatBytes, formatExactNumber, formatNumber } from '../ui/format';
import type { Sale } from '@/server/contract/sale-schema';
import { definitionLabel } from './definition-labels';
import { topUpsForForm } from './sale-fields';

/** A size, with its bytes where the rounded unit hides them: two sizes that differ never look the same. */
function shownSize(bytes: number): string {
  return bytes < 1024 || bytes % 1024 ** 2 === 0 ? formatBytes(bytes) : `${formatBytes(bytes)} (${formatNumber(bytes)} bytes)`;
}

/** A field's value as the diff shows it: top-up packs as the form writes them (units:price), any other list item by its JSON. */
export function shownValue(path: string, value: unknown): string {
  if (value === undefined) return '—';
  if ((path === 'limits.max_upload_bytes' || path === 'limits.max_stored_bytes') && typeof value === 'number') return shownSize(value);
  // Every decimal: a unit price of 0.0012345678 against 0.00124 must not read "0.001" twice.
  if (typeof value === 'number') return formatExactNumber(value);
  if (path === 'sale.top_ups' && Array.isArray(value)) return value.length ? topUpsForForm({ top_ups: value } as Sale) : '—';
  if (Array.isArray(value))
    return value.map((item) => (item !== null && typeof item === 'object' ? JSON.stringify(item) : String(item))).join(', ');
  if (value !== null && typeof value === 'object') return Object.keys(value).length ? 'sold' : '—';
  return String(value);
}

/** What a version without the field shows: an operation it does not sell, or a setting it does not have. */
const absent = (path: string) => (path.startsWith('operations.') ? 'not sold' : 'not set');

/** The fields that differ between two versions: old value struck through, new one highlighted. */
export function VersionDiff(props: {
  changes: VersionChange[];
  from: number;
  to: number;
  caption?: string;
  /** Inside another table's cell (the audit log): long values wrap within the cell. */
  inline?: boolean;
}) {
  if (props.changes.length === 0) {
    return (
      <p className="muted">
        Versions {props.from} and {props.to} have the same terms.
      </p>
    );
  }
  return (
    <div
      className={props.inline ? 'table-wrap diff-inline' : 'table-wrap'}
      role="region"
      aria-label={props.caption ?? `Changes from version ${props.from} to ${props.to}`}
      tabIndex={0}
    >
      <table>
        <caption className="visually-hidden">{props.caption ?? `Changes from version ${props.from} to ${props.to}`}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Version {props.from}</th>
            <th scope="col">Version {props.to}</th>
          </tr>
        </thead>
        <tbody>
          {props.changes.map((change) => (
            <tr key={change.path} className="diff-changed" data-change={change.kind}>
              <th scope="row">{definitionLabel(change.path)}</th>
              <td>
                <span className={change.kind === 'added' ? 'muted' : 'diff-old'}>
                  {change.kind === 'added' ? absent(change.path) : shownValue(change.path, change.before)}
                </span>
              </td>
              <td>
                <span className={change.kind === 'removed' ? 'muted' : 'diff-new'}>
                  {change.kind === 'removed' ? absent(change.path) : shownValue(change.path, change.after)}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
