import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';
import { inPgTransaction } from '../../db/pg-transaction';
import type { Actor } from '../actor';
import { recordAuditOn } from '../audit/record-audit';
import { findOperatorForChange, refuseLosingLastOwner } from './manage-operators';

export interface OperatorAccess {
  id: string;
  email: string;
  disabled: boolean;
  /** Sessions ended by this change (disabling ends every open one at once). */
  sessions_ended: number;
}

/**
 * Disables (or enables again) an operator's dashboard access. Disabling ends every session of
 * theirs on the server, so an open browser is refused at its next request; audited either way.
 * The last enabled owner cannot be disabled.
 */
export async function setOperatorDisabled(db: SqlDb, actor: Actor, email: string, disabled: boolean): Promise<OperatorAccess> {
  const normalized = email.trim().toLowerCase();
  return inPgTransaction(db.pool, async (client) => {
    const operator = await findOperatorForChange(client, normalized);
    const now = new Date();
    if (disabled !== Boolean(operator.disabledAt)) {
      if (disabled) await refuseLosingLastOwner(client, operator.id, 'email');
      await client.query(
        prepared(
          'wgs-operator-set-disabled',
          sql`UPDATE operators SET disabled_at = ${disabled ? now : null} WHERE id = ${operator.id}::uuid`,
        ),
      );
      await recordAuditOn(client, actor, {
        action: disabled ? 'operator.disable' : 'operator.enable',
        targetType: 'operator',
        targetId: operator.id,
        after: { email: normalized },
      });
    }
    const ended = disabled
      ? ((
          await client.query(
            prepared(
              'wgs-operator-end-sessions',
              sql`UPDATE operator_sessions SET ended_at = ${now} WHERE operator_id = ${operator.id}::uuid AND ended_at IS NULL`,
            ),
          )
        ).rowCount ?? 0)
      : 0;
    return { id: operator.id, email: operator.email, disabled, sessions_ended: ended };
  });
}
