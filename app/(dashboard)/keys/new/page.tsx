import type { Metadata } from 'next';
import Link from 'next/link';
import { IssueKeyForm } from '@/components/keys/issue-key-form';
import { requestedPackageProblem } from '@/components/keys/requested-package';
import { EmptyState } from '@/components/ui/card';
import { param, type SearchParams } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Issue a key' };

export default async function NewKeyPage({ searchParams }: { searchParams: SearchParams }) {
  const { caller } = await dashboardCaller('/keys/new', 'admin');
  // An archived package sells no new keys: it is not offered (a link asking for one is told so).
  const [listed, quotas] = await Promise.all([caller.packages.list(), caller.packages.versionQuotas()]);
  // Each version's own quota, for the form's hint on the version chosen (not only the latest's).
  const packages = listed.filter((pkg) => !pkg.archived_at).map((pkg) => ({ ...pkg, version_quotas: quotas[pkg.slug] ?? {} }));
  const archived = listed.filter((pkg) => pkg.archived_at).map((pkg) => pkg.slug);
  const requested = param(await searchParams, 'package');
  const problem = requestedPackageProblem(requested, packages, archived);
  return (
    <div className="stack">
      <PageHeader
        title="Issue a key"
        description="The key is locked to the package version you choose."
        back={{ href: '/keys', label: 'API keys' }}
      />
      {packages.length === 0 ? (
        <div className="card">
          <EmptyState title="There is no package to sell">
            {problem ? <p>{problem}</p> : null}
            <p>
              <Link href="/packages/new">Create a package</Link> (or restore an archived one) first.
            </p>
          </EmptyState>
        </div>
      ) : (
        <IssueKeyForm packages={packages} requested={requested} archived={archived} />
      )}
    </div>
  );
}
