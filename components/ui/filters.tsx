import Link from 'next/link';

export type FilterField =
  | { kind: 'search'; name: string; label: string; value?: string; placeholder?: string }
  | { kind: 'select'; name: string; label: string; value?: string; options: readonly { value: string; label: string }[] }
  | { kind: 'date'; name: string; label: string; value?: string };

/** A plain GET form: filters live in the URL, so they work without JavaScript and can be shared. */
export function Filters(props: { action: string; fields: FilterField[]; label: string }) {
  return (
    <form className="filters" method="get" action={props.action} role="search" aria-label={props.label}>
      {props.fields.map((field) => {
        const id = `filter-${field.name}`;
        return (
          <div className="field" key={field.name}>
            <label htmlFor={id}>{field.label}</label>
            {field.kind === 'select' ? (
              <select id={id} name={field.name} defaultValue={field.value ?? ''}>
                <option value="">All</option>
                {field.options.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={field.name}
                type={field.kind === 'date' ? 'date' : 'search'}
                defaultValue={field.value ?? ''}
                placeholder={field.kind === 'search' ? field.placeholder : undefined}
              />
            )}
          </div>
        );
      })}
      <div className="actions">
        <button className="button" type="submit">
          Apply
        </button>
        <Link className="button button-secondary" href={props.action}>
          Reset
        </Link>
      </div>
    </form>
  );
}

export const optionsOf = (values: readonly string[]) => values.map((value) => ({ value, label: value }));

/** Keyset paging: the first page and the next one (there are no page numbers to go stale). */
export function Pager(props: { path: string; params: Record<string, string | undefined>; nextCursor: string | null; hasCursor: boolean }) {
  if (!props.nextCursor && !props.hasCursor) return null;
  const href = (cursor?: string) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(props.params)) if (value && name !== 'cursor') query.set(name, value);
    if (cursor) query.set('cursor', cursor);
    const text = query.toString();
    return text ? `${props.path}?${text}` : props.path;
  };
  return (
    <nav className="pager" aria-label="Pages">
      {props.hasCursor ? (
        <Link className="button button-secondary" href={href()}>
          First page
        </Link>
      ) : null}
      {props.nextCursor ? (
        <Link className="button button-secondary" href={href(props.nextCursor)} rel="next">
          Next page →
        </Link>
      ) : null}
    </nav>
  );
}
