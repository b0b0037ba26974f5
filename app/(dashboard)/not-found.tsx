import Link from 'next/link';
import { EmptyState } from '@/components/ui/card';

export default function DashboardNotFound() {
  return (
    <div className="card">
      <h1>Not found</h1>
      <EmptyState title="There is nothing at this address.">
        <p>
          It may have been mistyped, or the record does not exist. <Link href="/">Back to the overview</Link>.
        </p>
      </EmptyState>
    </div>
  );
}
