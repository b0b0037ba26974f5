'use client';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';

export type FilterField =
  | { kind: 'search'; name: string; label: string; value?: string; placeholder?: string; error?: string; hint?: string }
  | { kind: 'select'; name: string; label: string; value?: string; options: readonly { value: string; label: string }[]; error?: string }
  | { kind: 'date'; name: string; label: string; value?: string; error?: string };

const DEBOUNCE_MS = 300;

/** The page values the fields stand for, and the queries the form wrote whose page has not come yet (oldest first). */
interface Standing {
  accepted: string;
  pending: string[];
}

/** Written queries remembered while their pages load: more than a typist writes in one page's time. */
const MAX_PENDING = 8;

/** Filled fields as a query string, trimmed (what apply writes to the URL). */
function queryOf(entries: [string, FormDataEntryValue][]): string {
  const query = new URLSearchParams();
  for (const [name, value] of entries) if (typeof value === 'string' && value.trim()) query.set(name, value.trim());
  return query.toString();
}

/**
 * Filters that live in the URL: they apply as you type (debounced, replacing the URL so the
 * back button is not flooded), and the form is still a plain GET that works without JavaScript.
 * A value that cannot apply keeps its text and says why next to its field. Fields hold what was
 * typed; values the form did not write (Reset, "Clear the filters", back and forward) render them
 * anew, or they would keep filters the list no longer applies.
 */
export function Filters(props: { action: string; fields: FilterField[]; label: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const form = useRef<HTMLFormElement>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  // What the fields stand for: `accepted`, the page values they were last rendered from or that
  // the form wrote; `pending`, the queries the form wrote whose page has not come yet (one written
  // while the one before loads; the page before them renders again meanwhile). A page of a pending
  // query is taken as it is (the fields hold what was typed since); any other values (Reset, "Clear
  // the filters", back and forward, a new key) render the fields anew, in the same render as those values.
  const shown = queryOf(props.fields.map((field) => [field.name, field.value ?? '']));
  const [standing, setStanding] = useState<Standing>({ accepted: shown, pending: [] });
  const [generation, setGeneration] = useState(0);
  if (shown !== standing.accepted) {
    const at = standing.pending.indexOf(shown);
    // A page the form asked for: the ones written before it will not come any more.
    if (at >= 0) setStanding({ accepted: shown, pending: standing.pending.slice(at + 1) });
    else {
      setStanding({ accepted: shown, pending: [] });
      setGeneration(generation + 1);
    }
  }
  useEffect(() => {
    // The fields went with the old form: the focus (a keyboard user's, on Reset) stays in the new one.
    const lost = !document.activeElement || document.activeElement === document.body;
    if (generation > 0 && lost) form.current?.querySelector<HTMLElement>('input, select')?.focus();
  }, [generation]);

  function apply(delay: number) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      if (!form.current) return;
      const text = queryOf([...new FormData(form.current)]);
      setStanding((last) => {
        const latest = last.pending.at(-1) ?? last.accepted;
        return text === latest ? last : { ...last, pending: [...last.pending, text].slice(-MAX_PENDING) };
      });
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
        <Link
          className="button button-secondary"
          href={props.action}
          onClick={() => {
            // What was typed and not yet written stays unwritten; the fields empty now, whatever page is loading.
            clearTimeout(timer.current);
            setStanding({ accepted: shown, pending: [] });
            setGeneration(generation + 1);
          }}
        >
          Reset
        </Link>
      </div>
    </form>
  );
}
