'use client';
import { Alert } from '@/components/ui/card';

export default function DashboardError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="stack">
      <h1>Something went wrong</h1>
      <Alert tone="error">
        This page could not be loaded.{' '}
        {error.digest ? (
          <>
            Reference: <code>{error.digest}</code>.
          </>
        ) : null}
      </Alert>
      <div className="actions">
        <button type="button" className="button" onClick={reset}>
          Try again
        </button>
      </div>
    </div>
  );
}
