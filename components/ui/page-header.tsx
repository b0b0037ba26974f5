import Link from 'next/link';
import type { ReactNode } from 'react';

export function PageHeader(props: { title: string; description?: ReactNode; back?: { href: string; label: string }; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        {props.back ? (
          <div className="breadcrumb">
            <Link href={props.back.href}>← {props.back.label}</Link>
          </div>
        ) : null}
        <h1>{props.title}</h1>
        {props.description ? <p>{props.description}</p> : null}
      </div>
      {props.actions ? <div className="actions">{props.actions}</div> : null}
    </header>
  );
}
