import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { recordAudit } from '../audit/record-audit';
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
export async function setOperatorDisabled(db: PrismaClient, actor: Actor, email: string, disabled: boolean): Promise<OperatorAccess> {
  const normalized = email.trim().toLowerCase();
  return db.$transaction(async (tx) => {
    const operator = await findOperatorForChange(tx, normalized);
    const now = new Date();
    if (disabled !== Boolean(operator.disabledAt)) {
      if (disabled) await refuseLosingLastOwner(tx, operator.id, 'email');
      await tx.operator.update({ where: { id: operator.id }, data: { disabledAt: disabled ? now : null } });
      await recordAudit(tx, actor, {
        action: disabled ? 'operator.disable' : 'operator.enable',
        targetType: 'operator',
        targetId: operator.id,
        after: { email: normalized },
      });
    }
    const ended = disabled
      ? (await tx.operatorSession.updateMany({ where: { operatorId: operator.id, endedAt: null }, data: { endedAt: now } })).count
      : 0;
    return { id: operator.id, email: operator.email, disabled, sessions_ended: ended };
  });
}
