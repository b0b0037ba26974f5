'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { describeError } from '../trpc/client';
import { Alert } from './card';

/**
 * Runs a dashboard mutation, then refreshes the page; `busy` and the error's sentence for the
 * buttons and the alert. With `keepBusy` the buttons stay disabled after a success until the
 * refreshed page replaces them (an action that cannot be undone is not offered twice).
 */
export function useRefreshingAction(action: () => Promise<unknown>, options: { keepBusy?: boolean; onDone?: () => void } = {}) {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function run() {
    setBusy(true);
    setError(null);
    try {
      await action();
      options.onDone?.();
      router.refresh();
      if (!options.keepBusy) setBusy(false);
    } catch (failure) {
      setError(describeError(failure).message);
      setBusy(false);
    }
  }
  return { busy, error, run };
}

export function ErrorAlert({ error }: { error: string | null }) {
  return error ? <Alert tone="error">{error}</Alert> : null;
}

/**
 * Which of a form's questions is open (null: none) and the buttons that open them. The button is
 * rendered anew when its question closes, so cancelling puts the focus back on it (WCAG 2.4.3),
 * where it would otherwise fall to the page.
 */
export function useQuestion<Which extends string>() {
  const [asking, setAsking] = useState<Which | null>(null);
  const returnTo = useRef<Which | null>(null);
  const openers = useRef(new Map<Which, HTMLButtonElement | null>());
  useEffect(() => {
    if (asking !== null || returnTo.current === null) return;
    openers.current.get(returnTo.current)?.focus();
    returnTo.current = null;
  }, [asking]);
  return {
    asking,
    ask: (which: Which) => setAsking(which),
    /** Closes the question and gives the focus back to the button that opened it. */
    cancel: () => {
      returnTo.current = asking;
      setAsking(null);
    },
    /** Closes the question once it was answered (what comes next takes the page). */
    close: () => setAsking(null),
    /** The `ref` of the button that opens `which`. */
    opener: (which: Which) => (button: HTMLButtonElement | null) => {
      openers.current.set(which, button);
    },
  };
}

export interface ConfirmDialogProps {
  /** The button that opens the question. */
  openLabel: string;
  /** The open button's accessible name, where several on a page share `openLabel`. */
  openName?: string;
  openTone: 'danger' | 'secondary';
  question: ReactNode;
  /** What the action does, in a sentence. */
  consequence: string;
  confirmLabel: string;
  busyLabel: string;
  action: () => Promise<unknown>;
  /** Keep the question open (and its buttons disabled) until the refreshed page replaces it. */
  keepOpen?: boolean;
}

/** A destructive action asks in the page (not the browser's confirm box); Cancel has the focus and Escape closes. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const question = useQuestion<'confirm'>();
  const { busy, error, run } = useRefreshingAction(props.action, {
    keepBusy: props.keepOpen,
    onDone: props.keepOpen ? undefined : question.close,
  });

  if (!question.asking) {
    return (
      <div className="actions">
        <button
          ref={question.opener('confirm')}
          type="button"
          className={`button button-${props.openTone}`}
          onClick={() => question.ask('confirm')}
          aria-label={props.openName}
        >
          {props.openLabel}
        </button>
      </div>
    );
  }
  return (
    <ConfirmQuestion
      question={props.question}
      consequence={props.consequence}
      confirmLabel={busy ? props.busyLabel : props.confirmLabel}
      busy={busy}
      onConfirm={() => void run()}
      onCancel={question.cancel}
    >
      <ErrorAlert error={error} />
    </ConfirmQuestion>
  );
}

/**
 * When a question goes with its answer (the refreshed page no longer offers the action), the focus
 * it held would fall to the page: it goes to the page's heading instead (WCAG 2.4.3). A cancelled
 * question's opener has taken it back by then (useQuestion), and is left alone.
 */
function focusHeadingIfDropped() {
  setTimeout(() => {
    if (document.activeElement && document.activeElement !== document.body) return;
    const heading = document.querySelector<HTMLElement>('main h1');
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
  });
}

/** The question itself, for a form that runs the action its own way (the webhook panel): Cancel has the focus, Escape cancels. */
export function ConfirmQuestion(props: {
  question: ReactNode;
  consequence: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ReactNode;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  const questionId = useId();
  const consequenceId = useId();
  useEffect(() => {
    cancel.current?.focus();
    return focusHeadingIfDropped;
  }, []);
  // Refused (the question stays, with its error): the focus, lost with the disabled buttons, goes back to Cancel.
  const wasBusy = useRef(false);
  useEffect(() => {
    if (wasBusy.current && !props.busy) cancel.current?.focus();
    wasBusy.current = props.busy;
  }, [props.busy]);
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-labelledby={questionId}
      aria-describedby={consequenceId}
      onKeyDown={(event) => {
        if (event.key === 'Escape') props.onCancel();
      }}
    >
      <strong id={questionId}>{props.question}</strong>
      <span id={consequenceId}>{props.consequence}</span>
      <div className="actions">
        <button type="button" className="button button-danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.confirmLabel}
        </button>
        <button ref={cancel} type="button" className="button button-secondary" onClick={props.onCancel} disabled={props.busy}>
          Cancel
        </button>
      </div>
      {props.children}
    </div>
  );
}
