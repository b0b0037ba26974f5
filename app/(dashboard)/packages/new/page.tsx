import type { Metadata } from 'next';
import { PackageVersionForm } from '@/components/packages/package-version-form';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'New package' };

export default async function NewPackagePage() {
  const { caller } = await dashboardCaller('/packages/new', 'admin');
  const engineChoices = await caller.providers.engineChoices();
  return (
    <div className="stack">
      <PageHeader
        title="New package"
        description="Its first version is created from this form."
        back={{ href: '/packages', label: 'Packages' }}
      />
      <PackageVersionForm mode="new-package" engineChoices={engineChoices} />
    </div>
  );
}
