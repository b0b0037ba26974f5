import Link from 'next/link';

/** The one 404 of the dashboard and of every other page: what happened and where to go. */
export function NotFoundPanel(props: { home: string; homeLabel: string }) {
  return (
    <section className="card not-found" aria-labelledby="not-found-title">
      <p className="not-found-code" aria-hidden="true">
        404
      </p>
      <h1 id="not-found-title">Page not found</h1>
      <p className="muted">
        There is nothing at this address. It may have been mistyped, or the record it names does not exist (or no longer does).
      </p>
      <div className="actions">
        <Link className="button" href={props.home}>
          {props.homeLabel}
        </Link>
        <Link className="button button-secondary" href="/keys">
          API keys
        </Link>
        <Link className="button button-secondary" href="/usage">
          Usage
        </Link>
      </div>
    </section>
  );
}
