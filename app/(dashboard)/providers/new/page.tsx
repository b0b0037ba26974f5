import type { Metadata } from 'next';
import { ProviderForm } from '@/components/providers/provider-form';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'Add a provider' };

export default async function NewProviderPage() {
  await dashboardCaller('/providers/new', 'admin');
  return (
    <div className="stack">
      <PageHeader
        title="Add a provider"
        description="The same entry as in a packages file's providers. Set its key on the next page, or name an environment variable that holds it."
        back={{ href: '/providers', label: 'Providers' }}
      />
      <ProviderForm mode="create" />
    </div>
  );
}
