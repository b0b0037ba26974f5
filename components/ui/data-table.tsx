import type { ReactNode } from 'react';
import { EmptyState } from './card';

export interface Column<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
}

/** The one table of the dashboard: a caption for screen readers, an empty state, scrolls sideways on small screens. */
export function DataTable<Row>(props: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  empty: { title: string; hint?: ReactNode };
  /** An id or class for a row (the usage row a request id links to). */
  rowProps?: (row: Row) => { id?: string; className?: string };
  /** A totals row: cells from the first column on, the rest left empty. */
  footer?: ReactNode[];
}) {
  if (props.rows.length === 0) {
    return (
      <div className="table-wrap">
        <EmptyState title={props.empty.title}>{props.empty.hint ? <p>{props.empty.hint}</p> : null}</EmptyState>
      </div>
    );
  }
  return (
    <div className="table-wrap" role="region" aria-label={props.caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.header} scope="col" className={column.numeric ? 'num' : undefined}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} {...props.rowProps?.(row)}>
              {props.columns.map((column) => (
                <td key={column.header} className={column.numeric ? 'num' : undefined}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {props.footer ? (
          <tfoot>
            <tr>
              {props.columns.map((column, index) => (
                <td key={column.header} className={column.numeric ? 'num' : undefined} data-testid={`total-${index}`}>
                  {props.footer?.[index] ?? ''}
                </td>
              ))}
            </tr>
          </tfoot>
        ) : null}
      </table>
    </div>
  );
}
