'use client';
import { buyerEmailInput } from '@/server/contract/dashboard/key-forms';
import { fieldErrors } from '../forms/plain-issues';
import { useFormAction } from '../forms/use-form-action';
import { trpc } from '../trpc/client';
import { ConfirmDialog } from '../ui/confirm-dialog';

/** What is wrong with a buyer's e-mail as typed (null: the procedure's schema takes it), in the key forms' words. */
export function buyerEmailError(email: string): string | null {
  const input = { email: email.trim() || null };
  const parsed = buyerEmailInput.safeParse(input);
  return parsed.success ? null : (fieldErrors(parsed.error, input, () => "Buyer's e-mail", buyerEmailInput).email ?? null);
}

/** The key's buyer's e-mail (the address that confirms its portal changes): set, change or remove; audited as key.email. */
export function BuyerEmailForm(props: { id: string; email: string | null }) {
  const { busy, message, setMessage, run } = useFormAction();
  return (
    <form
      className="filters"
      aria-label="Buyer's e-mail"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const email = String(new FormData(event.currentTarget).get('email') ?? '').trim();
        const refused = buyerEmailError(email);
        if (refused) {
          setMessage({ tone: 'error', text: refused });
          return;
        }
        void run(async () => {
          await trpc.sales.setBuyerEmail.mutate({ id: props.id, email: email || null });
          return { tone: 'ok', text: email ? `Changes in the portal are now confirmed by e-mail to ${email}.` : 'E-mail removed.' };
        });
      }}
    >
      <div className="field wide">
        <label htmlFor="buyer-email">Buyer&apos;s e-mail</label>
        <input
          id="buyer-email"
          name="email"
          type="email"
          defaultValue={props.email ?? ''}
          placeholder="buyer@example.com"
          aria-invalid={message?.tone === 'error' ? true : undefined}
          aria-describedby={message ? 'buyer-email-message' : undefined}
        />
      </div>
      <button className="button" type="submit" disabled={busy}>
        Save e-mail
      </button>
      {message ? (
        <span
          id="buyer-email-message"
          className={message.tone === 'error' ? 'error' : 'muted'}
          role={message.tone === 'error' ? 'alert' : 'status'}
        >
          {message.text}
        </span>
      ) : null}
    </form>
  );
}

/** The operator's decision for a key a dispute suspended: it works again (revoking is the Revoke card's). */
export function ReinstateKey(props: { id: string; prefix: string }) {
  return (
    <ConfirmDialog
      openLabel="Reinstate key"
      openTone="secondary"
      question={`Reinstate ${props.prefix}…?`}
      consequence="The API accepts the key again at once, on every instance. The dispute stays on its purchase."
      confirmLabel={`Reinstate ${props.prefix}…`}
      busyLabel="Reinstating…"
      action={() => trpc.sales.reinstateKey.mutate({ id: props.id })}
      keepOpen
    />
  );
}
