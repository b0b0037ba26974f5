import type { Metadata } from 'next';
import { NotFoundPanel } from '@/components/ui/not-found-panel';
import { CentredPage } from '@/components/ui/page-shell';

export const metadata: Metadata = { title: 'Page not found · Workflow Generation Service' };

/** Outside the dashboard's layout (an unknown top-level path): the same 404, centred on the page. */
export default function NotFound() {
  return (
    <CentredPage>
      <NotFoundPanel home="/" homeLabel="Go to the dashboard" />
    </CentredPage>
  );
}
