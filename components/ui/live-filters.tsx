'use client';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

export type FilterField =
  | { kind: 'search'; name: string; label: string; value?: string; placeholder?: string; error?: string; hint?: string }
  | { kind: 'select'; name: string; label: string; value?: string; options: readonly { value: string; label: string }[]; error?: string }
  | { kind: 'date'; name: string; label: string; value?: string; error?: string };

const DEBOUNCE_MS = 300;

/**
 * Filters that live in the URL: they apply as you type (debounced, replacing the URL so the
 * back button is not flooded), and the form is still a plain GET that works without JavaScript.
 * A value that cannot apply keeps its text and says why next to its field. Fields hold what was
 * typed; a URL the form did not write (Reset, "Clear the filters", back, a pager link) renders
 * them anew from the page's values, or they would keep filters the list no longer applies.
 */
export function Filters(props: { action: string; fields: FilterField[]; label: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const form = useRef<HTMLFormElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const urlQuery = useSearchParams().toString();
  const written = useRef(urlQuery);
  const [generation, setGeneration] = useState(0);
  const hadFocus = useRef(false);
  useEffect(() => {
    if (urlQuery === written.current) return;
    written.current = urlQuery;
    hadFocus.current = Boolean(form.current?.contains(document.activeElement));
    setGeneration((count) => count + 1);
  }, [urlQuery]);
  useEffect(() => {
    // A keyboard user who pressed Reset stays in the form rather than at the page's start.
    if (hadFocus.current) form.current?.querySelector<HTMLElement>('input, select')?.focus();
    hadFocus.current = false;
  }, [generation]);

  function apply(delay: number) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!form.current) return;
      const query = new URLSearchParams();
      for (const [name, value] of new FormData(form.current)) if (typeof value === 'string' && value.trim()) query.set(name, value.trim());
      const text = query.toString();
      written.current = text;
      // A changed filter starts again at the first page (the cursor is not a form field).
      router.replace(text ? `${pathname}?${text}` : pathname, { scroll: false });
    }, delay);
  }

  return (
    <form
      key={generation}
      ref={form}
      className="filters"
      method="get"
      action={props.action}
      role="search"
      aria-label={props.label}
      onChange={(event) => apply((event.target as HTMLElement).tagName === 'SELECT' ? 0 : DEBOUNCE_MS)}
      onSubmit={(event) => {
        event.preventDefault();
        apply(0);
      }}
    >
      {props.fields.map((field) => {
        const id = `filter-${field.name}`;
        const errorId = field.error ? `${id}-error` : undefined;
        const hintId = field.kind === 'date' ? `${id}-hint` : field.kind === 'search' && field.hint ? `${id}-hint` : undefined;
        const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
        return (
          <div className="field" key={field.name}>
            <label htmlFor={id}>{field.label}</label>
            {field.kind === 'select' ? (
              <select
                id={id}
                name={field.name}
                defaultValue={field.value ?? ''}
                aria-invalid={field.error ? true : undefined}
                aria-describedby={describedBy}
              >
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
                type={field.kind === 'date' ? 'text' : 'search'}
                defaultValue={field.value ?? ''}
                placeholder={field.kind === 'search' ? field.placeholder : 'YYYY-MM-DD'}
                inputMode={field.kind === 'date' ? 'numeric' : undefined}
                className={field.kind === 'date' ? 'date-input' : undefined}
                maxLength={field.kind === 'date' ? 10 : 200}
                autoComplete="off"
                aria-invalid={field.error ? true : undefined}
                aria-describedby={describedBy}
              />
            )}
            {field.kind === 'date' ? (
              <span className="hint" id={hintId}>
                UTC day, YYYY-MM-DD
              </span>
            ) : null}
            {field.kind === 'search' && field.hint ? (
              <span className="hint" id={hintId}>
                {field.hint}
              </span>
            ) : null}
            {field.error ? (
              <span className="error" id={errorId} data-testid={`${id}-error`}>
                {field.error}
              </span>
            ) : null}
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
