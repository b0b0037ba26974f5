import type { ProviderView } from '@/server/trpc/outputs';
import { formatDate } from '../ui/format';

/** Whether a provider has a key and where it comes from; never the key itself. */
export function KeyStatus({ provider, compact = false }: { provider: Pick<ProviderView, 'key' | 'api_key_env'>; compact?: boolean }) {
  if (provider.key.source === 'refused') {
    if (compact) return <span className="badge badge-danger">refused</span>;
    return (
      <span>
        <span className="badge badge-danger">refused</span> <span className="muted">{provider.key.problem}</span>
      </span>
    );
  }
  if (provider.key.source === 'stored') {
    if (compact) return <span className="badge badge-ok">stored</span>;
    return (
      <span>
        <span className="badge badge-ok">stored</span> <span className="muted">set {formatDate(provider.key.updated_at)}</span>
      </span>
    );
  }
  if (provider.key.source === 'env')
    return (
      <span>
        <span className="badge badge-ok">from env</span> <code>{provider.api_key_env}</code>
      </span>
    );
  if (provider.api_key_env)
    return (
      <span>
        <span className="badge badge-warn">not set</span> <code>{provider.api_key_env}</code> <span className="muted">is unset</span>
      </span>
    );
  return <span className="badge badge-neutral">none needed</span>;
}

/** The last 24 h failure ratio as words for the table. */
export function failureText(calls: number, failures: number): string {
  if (calls === 0) return '—';
  return `${failures} (${Math.round((failures / calls) * 100)}%)`;
}
