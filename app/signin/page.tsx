import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/auth/sign-in-form';
import { param, type SearchParams } from '@/components/ui/format';
import { CentredPage } from '@/components/ui/page-shell';
import { oauthProviders, pageOperatorSession, safeCallbackPath } from '@wgs/server/next';

export const metadata: Metadata = { title: 'Sign in · Workflow Generation Service' };

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(param(params, 'callbackUrl'));
  if (await pageOperatorSession()) redirect(callbackUrl);
  const oauth = oauthProviders().map((provider) => ({ id: provider.id, name: provider.name }));
  return (
    <CentredPage>
      <div className="card">
        <h1>Sign in to the operator dashboard</h1>
        <SignInForm callbackUrl={callbackUrl} initialError={param(params, 'error')} oauth={oauth} />
      </div>
    </CentredPage>
  );
}
