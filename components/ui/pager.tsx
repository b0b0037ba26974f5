import Link from 'next/link';

/**
 * One page of a keyset list from the URL's cursor. The list refuses a cursor this service did not
 * write (edited by hand, from an older version); the first page is shown instead.
 */
export function pageAt<Input extends { cursor?: string }, Page>(list: (input: Input) => Promise<Page>, input: Input): Promise<Page> {
  return input.cursor ? list(input).catch(() => list({ ...input, cursor: undefined })) : list(input);
}

/** Keyset paging: previous and next pages (there are no page numbers to go stale). */
export function Pager(props: {
  path: string;
  params: Record<string, string | undefined>;
  nextCursor: string | null;
  prevCursor?: string | null;
  hasCursor: boolean;
}) {
  if (!props.nextCursor && !props.prevCursor && !props.hasCursor) return null;
  const href = (cursor?: string) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(props.params)) if (value && name !== 'cursor') query.set(name, value);
    if (cursor) query.set('cursor', cursor);
    const text = query.toString();
    return text ? `${props.path}?${text}` : props.path;
  };
  // Lists without a previous-page cursor (the audit log) can still go back to the first page.
  const back = props.prevCursor !== undefined ? props.prevCursor : props.hasCursor ? '' : null;
  return (
    <nav className="pager" aria-label="Pages">
      {back !== null ? (
        <Link className="button button-secondary" href={href(back || undefined)} rel="prev">
          {props.prevCursor !== undefined ? '← Previous page' : 'First page'}
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
