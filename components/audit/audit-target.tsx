import Link from 'next/link';
import type { AuditTarget } from '@/server/trpc/outputs';
import { MonoId } from '../ui/mono-id';

/** An audit entry's target as a link to its object, named as operators know it. */
export function AuditTargetLink({ target }: { target: AuditTarget }) {
  if (target.type === 'api_key' && 'prefix' in target) {
    return (
      <span className="nowrap">
        <span className="muted">key </span>
        {target.prefix ? (
          <MonoId value={target.prefix} what="key prefix" href={`/keys/${target.id}`} full />
        ) : (
          <MonoId value={target.id} what="key id" />
        )}
        {target.label ? <span> {target.label}</span> : null}
      </span>
    );
  }
  if (target.type === 'package' && 'slug' in target) {
    return (
      <span className="nowrap">
        <span className="muted">package </span>
        <Link href={`/packages/${target.slug}${target.version ? `#v${target.version}` : ''}`}>
          <code>{target.slug}</code>
          {target.version ? ` v${target.version}` : ''}
        </Link>
      </span>
    );
  }
  if (target.type === 'operator' && 'email' in target) {
    return (
      <span className="nowrap">
        <span className="muted">operator </span>
        {target.email ?? (target.id ? <MonoId value={target.id} what="operator id" /> : '—')}
      </span>
    );
  }
  return (
    <span className="nowrap">
      <span className="muted">{target.type} </span>
      {target.id ? <code>{target.id}</code> : null}
    </span>
  );
}
