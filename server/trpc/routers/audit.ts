import { z } from 'zod';
import { describeAuditTargets } from '../../domain/audit/audit-targets';
import { listAudit, listAuditActions } from '../../domain/audit/list-audit';
import { viewerProcedure, router } from '../init';
import { limit } from './inputs';

export const auditRouter = router({
  list: viewerProcedure
    .input(
      z.strictObject({
        action: z.string().max(100).optional(),
        actor: z.string().max(320).optional(),
        targetType: z.string().max(100).optional(),
        targetId: z.string().max(200).optional(),
        cursor: z.string().max(100).optional(), // one this service never returned: 422 from listAudit, as every list's
        limit,
      }),
    )
    .query(async ({ ctx, input }) => {
      const page = await listAudit(ctx.db, input);
      const targets = await describeAuditTargets(ctx.db, page.items);
      // Each entry carries its target in operators' words: a key's prefix and label, a package's slug and version.
      return { ...page, items: page.items.map((item) => ({ ...item, target: targets.get(item.id)! })) };
    }),
  actions: viewerProcedure.query(({ ctx }) => listAuditActions(ctx.db)),
});
