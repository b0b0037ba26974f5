import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { param, type SearchParams } from '@/components/ui/format';
import { oauthProviders } from '@/server/auth/auth-options';
import { getOperatorSession } from '@/server/auth/session';

export const metadata: Metadata = { title: 'Sign in · Workflow Generation Service' };

/**
 * Only same-site paths: a crafted callbackUrl must not send the operator elsewhere. Parsed as
 * a browser would (it reads `/\host` as `//host`), and handed back as a plain path.
 */
function safeCallback(value: string | undefined): string {
  if (!value?.startsWith('/')) return '/';
  const base = 'http://dashboard.invalid';
  const url = new URL(value, base);
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Removing dot segments can turn `/.//host` into `//host`: the result is checked again.
  const safe = url.origin === base && !/^\/[/\\]/.test(path) && new URL(path, base).origin === base;
  return safe && !url.pathname.startsWith('/signin') ? path : '/';
}

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackUrl = safeCallback(param(params, 'callbackUrl'));
  if (await getOperatorSession()) redirect(callbackUrl);
  const oauth = oauthProviders().map((provider) => ({ id: provider.id, name: provider.name }));
  return (
    <main className="signin">
      <div className="card">
        <h1>Sign in to the operator dashboard</h1>
        <SignInForm callbackUrl={callbackUrl} initialError={param(params, 'error')} oauth={oauth} />
      </div>
    </main>
  );
}
