import type { ReactNode } from 'react';

export function Card(props: { title?: string; children: ReactNode; id?: string }) {
  const headingId = props.id ? `${props.id}-title` : undefined;
  return (
    <section className="card" aria-labelledby={props.title ? headingId : undefined} id={props.id}>
      {props.title ? <h2 id={headingId}>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

export function Stat(props: { label: string; value: ReactNode; testId?: string; children?: ReactNode }) {
  return (
    <div className="card stat">
      <div className="label">{props.label}</div>
      <div className="value" data-testid={props.testId}>
        {props.value}
      </div>
      {props.children}
    </div>
  );
}

export function Alert(props: { tone: 'error' | 'ok' | 'warn'; children: ReactNode }) {
  return (
    <div className={`alert alert-${props.tone}`} role={props.tone === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

export function EmptyState(props: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <strong>{props.title}</strong>
      {props.children}
    </div>
  );
}

export function DetailList(props: { items: [string, ReactNode][] }) {
  return (
    <dl className="details">
      {props.items.map(([label, value]) => (
        <div key={label} style={{ display: 'contents' }}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
