import type { ReactNode } from 'react';

export type Errors = Record<string, string>;

/** One labelled field of the package form, with its hint and its error wired for screen readers. */
export function Field(props: { name: string; label: string; errors: Errors; hint?: string; children: (a11y: object) => ReactNode }) {
  const id = `f-${props.name.replace(/[^a-z0-9]+/gi, '-')}`;
  const error = props.errors[props.name];
  const describedBy = [props.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children({ id, name: props.name, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {props.hint ? (
        <span className="hint" id={`${id}-hint`}>
          {props.hint}
        </span>
      ) : null}
      {error ? (
        <span className="error" id={`${id}-error`}>
          {error}
        </span>
      ) : null}
    </div>
  );
}
