'use client';
import { type FormEvent, type ReactNode } from 'react';
import { CopyButton } from '../keys/copy-button';
import { ConfirmQuestion, useQuestion } from '../ui/confirm-dialog';

/** What a change of the endpoint did: its sentence and, once, the new signing secret. */
export interface WebhookOutcome {
  text: string;
  secret?: string;
}

const ASK = {
  rotate: {
    label: 'Rotate secret',
    question: 'Rotate the signing secret?',
    consequence: 'The old secret stops signing at once: the receiver refuses deliveries until it has the new one.',
  },
  clear: {
    label: 'Remove webhook',
    question: 'Remove the webhook?',
    consequence: "This key's job events are no longer POSTed anywhere.",
  },
} as const;

type Change = keyof typeof ASK;
const CHANGES: readonly Change[] = ['rotate', 'clear'];

/**
 * A key's job webhook endpoint: what is POSTed to it, its URL (set, saved with a new secret),
 * rotating the secret, removing it, and what the last change did (a new signing secret shown here
 * once) or why it failed. The operator's key page and the customer's portal render it, each
 * calling its own procedures: `onSet`, `onRotate` and `onClear` start a change, `busy`, `outcome`
 * and `error` are its state; `awaiting` (the portal's e-mailed code) replaces the controls while
 * a change waits for it. `jobs` names whose video jobs are meant, `note` what else to know. With
 * `askFirst` (the operator's page: the portal confirms by e-mail) rotating and removing ask in the
 * page first, saying what they break.
 */
export function WebhookEndpointForm(props: {
  jobs: string;
  note?: string;
  url: string | null;
  disabledAt: string | null;
  busy: boolean;
  onSet: (url: string) => void;
  onRotate: () => void;
  onClear: () => void;
  outcome: WebhookOutcome | null;
  error: string | null;
  /** The error is the URL's: the field is marked invalid and described by it. */
  urlRefused?: boolean;
  awaiting?: ReactNode;
  askFirst?: boolean;
}) {
  const { asking, ask, cancel, close, opener } = useQuestion<Change>();
  const change: Record<Change, () => void> = { rotate: props.onRotate, clear: props.onClear };
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    props.onSet(String(new FormData(event.currentTarget).get('url') ?? ''));
  }
  const { outcome } = props;

  return (
    <div className="stack">
      <p className="muted">
        {`When ${props.jobs} ends, `}
        <code>job.succeeded</code>, <code>job.failed</code> or <code>job.cancelled</code> is POSTed to this https endpoint, signed the
        Standard Webhooks way.
        {props.note ? ` ${props.note}` : ''}
        {props.disabledAt ? ' The endpoint answered 410 Gone and is disabled: set it again to resume.' : ''}
      </p>
      {props.awaiting ?? (
        <>
          <form className="filters" onSubmit={submit} aria-label="Webhook endpoint" noValidate>
            <div className="field wide">
              <label htmlFor="webhook-url">Endpoint URL</label>
              <input
                id="webhook-url"
                name="url"
                type="url"
                defaultValue={props.url ?? ''}
                placeholder="https://example.com/hooks/wgs"
                required
                aria-invalid={props.urlRefused || undefined}
                aria-describedby={props.urlRefused ? 'webhook-error' : undefined}
              />
            </div>
            <button className="button" type="submit" disabled={props.busy}>
              {props.url ? 'Save (new secret)' : 'Set webhook'}
            </button>
          </form>
          {props.url && asking ? (
            <ConfirmQuestion
              question={ASK[asking].question}
              consequence={ASK[asking].consequence}
              confirmLabel={ASK[asking].label}
              busy={props.busy}
              onConfirm={() => {
                close();
                change[asking]();
              }}
              onCancel={cancel}
            />
          ) : props.url ? (
            <div className="filters">
              {CHANGES.map((which) => (
                <button
                  key={which}
                  ref={opener(which)}
                  type="button"
                  className="button button-secondary"
                  disabled={props.busy}
                  onClick={props.askFirst ? () => ask(which) : change[which]}
                >
                  {ASK[which].label}
                </button>
              ))}
            </div>
          ) : null}
        </>
      )}
      {outcome?.secret ? (
        <div className="alert alert-ok" role="status" data-testid="webhook-secret">
          <p>{outcome.text} Signing secret, shown only now:</p>
          <code>{outcome.secret}</code> <CopyButton value={outcome.secret} label="Copy secret" />
        </div>
      ) : outcome ? (
        <div className="alert alert-ok" role="status">
          {outcome.text}
        </div>
      ) : null}
      {props.error ? (
        <div className="alert alert-error" role="alert" id="webhook-error">
          {props.error}
        </div>
      ) : null}
    </div>
  );
}
