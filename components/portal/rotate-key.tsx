'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { CopyButton } from '../keys/copy-button';
import { ConfirmQuestion, useQuestion } from '../ui/confirm-dialog';
import { ConfirmCode, useChangeRequest } from './confirm-code';

/**
 * Replaces the key's secret once the buyer's e-mailed code confirms it. The new one is shown here
 * once; the old one is refused at once, and this session (signed in with the old one) has ended,
 * so the page offers to sign in again.
 */
export function RotateKey(props: { prefix: string }) {
  const router = useRouter();
  const change = useChangeRequest();
  const [rotated, setRotated] = useState<{ secret: string; prefix: string } | null>(null);
  const question = useQuestion<'rotate'>();

  if (rotated) return <RotatedKey secret={rotated.secret} oldPrefix={props.prefix} onSignIn={() => router.refresh()} />;
  if (change.sentTo) {
    return (
      <ConfirmCode
        sentTo={change.sentTo}
        what="replace your key's secret"
        onConfirmed={(result) => result.action === 'rotate_key' && setRotated(result)}
        onCancel={change.reset}
      />
    );
  }
  return (
    <div className="stack">
      {question.asking ? (
        <ConfirmQuestion
          question={`Replace the secret of ${props.prefix}…?`}
          consequence="We e-mail a code to the key's buyer first. Once it is entered, the current key stops working at once, everywhere it is used; the new key is shown once; units and history stay."
          confirmLabel={change.busy ? 'Sending the code…' : 'E-mail me a code'}
          busy={change.busy}
          onConfirm={() => void change.request({ action: 'rotate_key' })}
          onCancel={question.cancel}
        />
      ) : (
        <div className="actions">
          <button ref={question.opener('rotate')} type="button" className="button button-secondary" onClick={() => question.ask('rotate')}>
            Rotate key
          </button>
        </div>
      )}
      {change.error ? (
        <div className="alert alert-error" role="alert">
          {change.error}
        </div>
      ) : null}
    </div>
  );
}

/** The new key, shown once; the focus moves to it from the confirmation it replaces (which held it). */
function RotatedKey(props: { secret: string; oldPrefix: string; onSignIn: () => void }) {
  const shown = useRef<HTMLDivElement>(null);
  useEffect(() => shown.current?.focus(), []);
  return (
    <div className="stack">
      <div className="alert alert-ok" data-testid="rotated-secret" ref={shown} tabIndex={-1}>
        <p>Your new API key, shown only now. Store it before you leave this page:</p>
        <code>{props.secret}</code> <CopyButton value={props.secret} label="Copy key" />
      </div>
      <p className="muted">
        The old key ({props.oldPrefix}…) is refused from now on, and this portal session ended with it. Units, history and the webhook stay.
      </p>
      <div className="actions">
        <button type="button" className="button" onClick={props.onSignIn}>
          Sign in with the new key
        </button>
      </div>
    </div>
  );
}
