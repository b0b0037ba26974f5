import { z } from 'zod';
import { issueKey } from '../../domain/keys/issue-key';
import { getKey, listKeys, revokeKey, topUpKey } from '../../domain/keys/manage-keys';
import { PG_INTEGER_MAX } from '../../domain/pg-integer';
import { usageByDay } from '../../domain/reports/overview';
import { listUsageEvents } from '../../domain/reports/usage-events';
import { operatorProcedure, router } from '../init';
import { limit, uuid } from './inputs';

export const keysRouter = router({
  list: operatorProcedure
    .input(
      z.strictObject({
        search: z.string().trim().max(200).optional(),
        status: z.enum(['active', 'revoked']).optional(),
        packageSlug: z.string().max(63).optional(),
        cursor: uuid.optional(),
        limit,
      }),
    )
    .query(({ ctx, input }) => listKeys(ctx.db, { ...input, search: input.search || undefined })),
  get: operatorProcedure.input(z.strictObject({ id: uuid })).query(({ ctx, input }) => getKey(ctx.db, input.id)),
  /** Daily usage and the latest requests of one key, for its detail page. */
  activity: operatorProcedure
    .input(z.strictObject({ id: uuid, days: z.number().int().min(1).max(366).optional() }))
    .query(async ({ ctx, input }) => {
      const key = await getKey(ctx.db, input.id);
      const [daily, recent] = await Promise.all([
        usageByDay(ctx.db, { apiKeyId: key.id, days: input.days ?? 14 }),
        listUsageEvents(ctx.db, { apiKeyId: key.id, limit: 20 }),
      ]);
      return { daily, recent: recent.items };
    }),
  issue: operatorProcedure
    .input(
      z.strictObject({
        packageSlug: z.string().min(1).max(63),
        version: z.number().int().min(1).max(PG_INTEGER_MAX).optional(),
        label: z.string().trim().min(1).max(200).optional(),
      }),
    )
    .mutation(({ ctx, input }) => issueKey(ctx.db, ctx.actor, input)),
  revoke: operatorProcedure.input(z.strictObject({ id: uuid })).mutation(({ ctx, input }) => revokeKey(ctx.db, ctx.actor, input.id)),
  topUp: operatorProcedure
    .input(z.strictObject({ id: uuid, units: z.number().int().min(1).max(1_000_000_000) }))
    .mutation(({ ctx, input }) => topUpKey(ctx.db, ctx.actor, input.id, input.units)),
});
