const TONES: Record<string, 'ok' | 'danger' | 'warn' | 'neutral'> = {
  active: 'ok',
  succeeded: 'ok',
  verified: 'ok',
  revoked: 'danger',
  suspended: 'danger',
  failed: 'danger',
  expired: 'neutral',
  deleted: 'neutral',
  pending: 'warn',
  submitted: 'neutral',
  running: 'warn',
  cancelled: 'neutral',
  delivered: 'ok',
  skipped: 'neutral',
  // Purchases (the Sales page): paid, open checkouts, refunds, disputes and refused payments.
  paid: 'ok',
  open: 'neutral',
  partly_refunded: 'warn',
  refunded: 'danger',
  disputed: 'danger',
  refused: 'danger',
};

/** A status in its tone; `label` words it for customers (by default the status itself, as operators know it). */
export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return <span className={`badge badge-${TONES[status] ?? 'neutral'}`}>{label ?? status}</span>;
}
