import { z } from 'zod';
import { isAuditCursor, listAudit, listAuditActions } from '../../domain/audit/list-audit';
import { operatorProcedure, router } from '../init';
import { limit } from './inputs';

export const auditRouter = router({
  list: operatorProcedure
    .input(
      z.strictObject({
        action: z.string().max(100).optional(),
        actor: z.string().max(320).optional(),
        targetType: z.string().max(100).optional(),
        targetId: z.string().max(200).optional(),
        cursor: z.string().refine(isAuditCursor, 'not a cursor this service returned').optional(),
        limit,
      }),
    )
    .query(({ ctx, input }) => listAudit(ctx.db, input)),
  actions: operatorProcedure.query(({ ctx }) => listAuditActions(ctx.db)),
});
