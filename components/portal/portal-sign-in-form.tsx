'use client';
import { useRouter } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { useHydrated } from '../ui/use-hydrated';

/** Set as a sign-in succeeds, read by the page it shows (router.refresh keeps this module). */
let signedInJustNow = false;

/**
 * On the portal's page after a sign-in: the focus moves to its heading, so a screen reader says
 * the page changed (the address and title stay the same; the form that had the focus is gone).
 */
export function FocusAfterSignIn() {
  useEffect(() => {
    if (!signedInJustNow) return;
    signedInJustNow = false;
    const heading = document.querySelector<HTMLElement>('#main h1');
    if (!heading) return;
    heading.tabIndex = -1;
    heading.focus();
  }, []);
  return null;
}

/** Signs in with an API key: POSTs it as JSON (never in a URL) and shows the portal on success; the button waits for the page's script. */
export function PortalSignInForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const ready = useHydrated();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const secret = String(new FormData(event.currentTarget).get('secret') ?? '');
    setBusy(true);
    setError(null);
    try {
      const response = await fetch('/api/portal/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret }),
      });
      if (response.ok) {
        signedInJustNow = true;
        router.refresh();
        return;
      }
      const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
      setError(response.status === 401 ? 'That key is not an active API key.' : (body?.error?.message ?? 'Sign-in failed. Try again.'));
    } catch {
      setError('The request failed. Check your connection and try again.');
    }
    setBusy(false);
  }

  return (
    <form method="post" onSubmit={submit} aria-describedby={error ? 'portal-signin-error' : undefined}>
      {error ? (
        <div className="alert alert-error" role="alert" id="portal-signin-error">
          {error}
        </div>
      ) : null}
      <div className="field">
        <label htmlFor="secret">API key</label>
        <input id="secret" name="secret" type="password" autoComplete="current-password" placeholder="wgs_live_…" required autoFocus />
      </div>
      <noscript>
        <p className="muted">Signing in needs JavaScript: it sends the key in the request body, never in the address.</p>
      </noscript>
      <button className="button" type="submit" disabled={busy || !ready}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

/**
 * Ends the portal session on the server and shows the sign-in form again. When the server did not
 * end it (no connection, an error), it says so and stays signed in: on a shared computer a
 * customer must not walk away believing they signed out.
 */
export function PortalSignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function signOut() {
    setBusy(true);
    setError(null);
    const response = await fetch('/api/portal/session', { method: 'DELETE' }).catch(() => null);
    if (response?.ok) {
      router.refresh();
      return;
    }
    setError(
      response
        ? 'Sign-out failed: you are still signed in. Try again.'
        : 'Sign-out failed: the request did not reach the server, so you are still signed in. Check your connection and try again.',
    );
    setBusy(false);
  }

  return (
    <>
      {error ? (
        <div className="alert alert-error" role="alert" data-testid="sign-out-error">
          {error}
        </div>
      ) : null}
      <button type="button" className="button button-secondary" disabled={busy} onClick={() => void signOut()}>
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
    </>
  );
}
