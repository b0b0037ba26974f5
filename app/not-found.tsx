import type { Metadata } from 'next';
import { NotFoundPanel } from '@/components/ui/not-found-panel';

export const metadata: Metadata = { title: 'Page not found · Workflow Generation Service' };

/** Outside the dashboard's layout (an unknown top-level path): the same 404, centred on the page. */
export default function NotFound() {
  return (
    <main className="signin" id="main">
      <NotFoundPanel home="/" homeLabel="Go to the dashboard" />
    </main>
  );
}
