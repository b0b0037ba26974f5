import type { History, KeyRecord } from '../../history';
import type { Invariant, Violation } from '../invariant';

// Units are neither made nor lost: what a key was sold (its package's quota and every top-up paid
// at the fake Stripe) is what it has left plus what was captured from it, and every captured unit
// has its usage event. Once the run has quiesced no hold is left open and no slot taken.

/** The units of every paid top-up the fake Stripe took for this key. */
export function toppedUp(history: History, key: KeyRecord): number {
  return history.payments.filter((p) => p.kind === 'top-up' && p.paid && p.key === key.name).reduce((sum, p) => sum + p.units, 0);
}

function sumUnits<T extends { keyId: string; units: number }>(rows: T[], keyId: string, keep: (row: T) => boolean): number {
  return rows.filter((row) => row.keyId === keyId && keep(row)).reduce((sum, row) => sum + row.units, 0);
}

export const unitsConserved: Invariant = {
  name: 'units-conserved',
  description: 'per key: quota + top-ups = remaining + captured, and the usage events charge what was captured',
  check(history, books) {
    const violations: Violation[] = [];
    for (const key of history.keys) {
      const row = books.keys.find((k) => k.id === key.id);
      if (!row) {
        violations.push({ subject: `key ${key.name}`, message: 'not in the database' });
        continue;
      }
      const sold = key.quota + toppedUp(history, key);
      const captured = sumUnits(books.holds, key.id, (h) => h.status === 'captured');
      const held = sumUnits(books.holds, key.id, (h) => h.status === 'held');
      if (sold !== row.remaining + captured + held) {
        violations.push({
          subject: `key ${key.name}`,
          message: `quota ${key.quota} + top-ups ${sold - key.quota} = ${sold}, but remaining ${row.remaining} + captured ${captured} + held ${held} = ${row.remaining + captured + held}`,
        });
      }
      const charged = sumUnits(books.usage, key.id, (u) => u.outcome === 'succeeded');
      if (charged !== captured) {
        violations.push({ subject: `key ${key.name}`, message: `usage events charge ${charged} units, captured holds ${captured}` });
      }
    }
    return { checked: history.keys.length, violations };
  },
};

export const noOpenHold: Invariant = {
  name: 'no-open-hold',
  description: 'after quiescing: no hold still held, no concurrency slot still taken',
  check(history, books) {
    const ours = new Map(history.keys.map((key) => [key.id, key.name]));
    const violations: Violation[] = [];
    for (const hold of books.holds) {
      if (hold.status === 'held' && ours.has(hold.keyId)) {
        violations.push({
          subject: `hold ${hold.id}`,
          message: `${hold.operation} of key ${ours.get(hold.keyId)} (request ${hold.requestId}) still held`,
        });
      }
    }
    for (const key of books.keys) {
      if (ours.has(key.id) && key.inFlight !== 0)
        violations.push({ subject: `key ${ours.get(key.id)}`, message: `in_flight ${key.inFlight}, not 0` });
    }
    const checked = books.holds.filter((hold) => ours.has(hold.keyId)).length + history.keys.length;
    return { checked, violations };
  },
};
