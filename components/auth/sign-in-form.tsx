'use client';
import { signIn } from 'next-auth/react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';

// A Map, not an object: `?error=__proto__` or `toString` must not find anything.
const MESSAGES = new Map<string, string>([
  ['CredentialsSignin', 'The e-mail or password is not correct.'],
  ['RateLimited', 'Too many sign-in attempts. Wait a little and try again: each failed attempt makes the wait longer.'],
  ['AccessDenied', 'No operator account matches that sign-in.'],
]);

export function SignInForm(props: { callbackUrl: string; initialError?: string; oauth: { id: string; name: string }[] }) {
  const router = useRouter();
  const [error, setError] = useState(props.initialError ? (MESSAGES.get(props.initialError) ?? 'Sign-in failed.') : null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    const result = await signIn('credentials', {
      email: String(form.get('email') ?? ''),
      password: String(form.get('password') ?? ''),
      redirect: false,
    }).catch(() => undefined);
    if (result?.ok && !result.error) {
      router.replace(props.callbackUrl);
      router.refresh();
      return;
    }
    setBusy(false);
    setError(MESSAGES.get(result?.error ?? '') ?? 'Sign-in failed. Try again.');
  }

  return (
    <>
      {/* POST even before the script runs (or without it): a GET would put the password in the URL. */}
      <form method="post" onSubmit={submit} noValidate={false} aria-describedby={error ? 'signin-error' : undefined}>
        {error ? (
          <div className="alert alert-error" role="alert" id="signin-error">
            {error}
          </div>
        ) : null}
        <div className="field">
          <label htmlFor="email">E-mail</label>
          <input id="email" name="email" type="email" autoComplete="username" required autoFocus />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
        </div>
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {props.oauth.length > 0 ? (
        <div className="stack" style={{ marginTop: '1rem' }}>
          {props.oauth.map((provider) => (
            <button
              key={provider.id}
              type="button"
              className="button button-secondary"
              onClick={() => void signIn(provider.id, { callbackUrl: props.callbackUrl })}
            >
              Sign in with {provider.name}
            </button>
          ))}
        </div>
      ) : null}
    </>
  );
}
