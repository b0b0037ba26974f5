import type { Metadata } from 'next';
import { PackageVersionForm } from '@/components/packages/package-version-form';
import { PageHeader } from '@/components/ui/page-header';
import { orNotFound, versionToDefinition } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

export const metadata: Metadata = { title: 'New package version' };

export default async function NewVersionPage(props: { params: Promise<{ slug: string }> }) {
  const { slug } = await props.params;
  const { caller } = await dashboardCaller(`/packages/${slug}/new-version`, 'admin');
  const [pkg, engineChoices] = await Promise.all([orNotFound(caller.packages.get({ slug })), caller.providers.engineChoices()]);
  const latest = pkg.versions[0];
  return (
    <div className="stack">
      <PageHeader
        title={`New version of ${pkg.name}`}
        description={`Starts from version ${pkg.latest_version}. Keys already issued keep their version.`}
        back={{ href: `/packages/${pkg.slug}`, label: pkg.name }}
      />
      <PackageVersionForm
        mode="new-version"
        initial={latest ? versionToDefinition(pkg.slug, latest) : undefined}
        basedOnVersion={latest?.version}
        engineChoices={engineChoices}
      />
    </div>
  );
}
