import type { VersionChange } from '@/server/trpc/outputs';
import { formatBytes, formatNumber } from '../ui/format';
import { definitionLabel } from './definition-labels';

function show(path: string, value: unknown): string {
  if (value === undefined) return '—';
  if ((path === 'limits.max_upload_bytes' || path === 'limits.max_stored_bytes') && typeof value === 'number') return formatBytes(value);
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return value.join(', ');
  if (value !== null && typeof value === 'object') return Object.keys(value).length ? 'sold' : '—';
  return String(value);
}

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
                  {change.kind === 'added' ? 'not sold' : show(change.path, change.before)}
                </span>
              </td>
              <td>
                <span className={change.kind === 'removed' ? 'muted' : 'diff-new'}>
                  {change.kind === 'removed' ? 'not sold' : show(change.path, change.after)}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
