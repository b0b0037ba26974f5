import { NotFoundPanel } from '@/components/ui/not-found-panel';

export default function DashboardNotFound() {
  return <NotFoundPanel home="/" homeLabel="Back to the overview" />;
}
