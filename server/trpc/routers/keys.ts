import { z } from 'zod';
import { webhookUrlField } from '../../contract/webhook-url';
import { getSqlDb } from '../../db/client';
import { issueKey } from '../../domain/keys/issue-key';
import { topUpKey } from '../../domain/billing/top-up-key';
import { SHOWN_KEY_STATUSES } from '../../contract/dashboard/key-status';
import { editKeyLabel, getKey, listKeys, revokeKey } from '../../domain/keys/manage-keys';
import { usageByDay } from '../../domain/reports/overview';
import { listUsageEvents } from '../../domain/reports/usage-events';
import {
  clearKeyWebhook,
  keyWebhookPanel,
  resendDelivery,
  rotateKeyWebhookSecret,
  setKeyWebhook,
} from '../../domain/webhooks/manage-webhook';
import { roleAllows } from '../../contract/dashboard/roles';
import { adminProcedure, viewerProcedure, router } from '../init';
import { keyIssueInput, keyLabelInput } from '../../contract/dashboard/key-forms';
import { cursor, limit, uuid } from './inputs';

export const keysRouter = router({
  list: viewerProcedure
    .input(
      z.strictObject({
        search: z.string().trim().max(200).optional(),
        status: z.enum(SHOWN_KEY_STATUSES).optional(),
        packageSlug: z.string().max(63).optional(),
        cursor,
        limit,
      }),
    )
    .query(({ ctx, input }) => listKeys(ctx.db, { ...input, search: input.search || undefined })),
  get: viewerProcedure.input(z.strictObject({ id: uuid })).query(({ ctx, input }) => getKey(ctx.db, input.id)),
  /** Daily usage and the latest requests of one key, for its detail page. */
  activity: viewerProcedure
    .input(z.strictObject({ id: uuid, days: z.number().int().min(1).max(366).optional() }))
    .query(async ({ ctx, input }) => {
      const key = await getKey(ctx.db, input.id);
      const [daily, recent] = await Promise.all([
        usageByDay(getSqlDb(), { apiKeyId: key.id, days: input.days ?? 14 }),
        listUsageEvents(ctx.db, { apiKeyId: key.id, limit: 20 }),
      ]);
      return { daily, recent: recent.items };
    }),
  /** An expiry day is the last day the key works: it expires at the start of the next UTC day. */
  issue: adminProcedure.input(keyIssueInput).mutation(async ({ ctx, input }) => {
    const { expiresOn, ...rest } = input;
    const expiresAt = expiresOn ? new Date(Date.parse(`${expiresOn}T00:00:00.000Z`) + 86_400_000) : undefined;
    const issued = await issueKey(ctx.db, ctx.actor, { ...rest, expiresAt });
    return { ...issued, expires_at: expiresAt?.toISOString() ?? null };
  }),
  updateLabel: adminProcedure
    .input(keyLabelInput.extend({ id: uuid }))
    .mutation(({ ctx, input }) => editKeyLabel(getSqlDb(), ctx.actor, input.id, input.label ?? null)),
  revoke: adminProcedure.input(z.strictObject({ id: uuid })).mutation(({ ctx, input }) => revokeKey(getSqlDb(), ctx.actor, input.id)),
  /** The key's webhook endpoint and its latest deliveries. */
  // A viewer sees the endpoint's host only: its path and query often carry a token.
  webhook: viewerProcedure
    .input(z.strictObject({ id: uuid }))
    .query(({ ctx, input }) => keyWebhookPanel(ctx.db, input.id, roleAllows(ctx.session.role, 'admin'))),
  /** Returns the new signing secret: the only time it is shown. */
  setWebhook: adminProcedure
    .input(z.strictObject({ id: uuid, url: webhookUrlField }))
    .mutation(({ ctx, input }) => setKeyWebhook(ctx.db, ctx.actor, input.id, input.url)),
  rotateWebhookSecret: adminProcedure
    .input(z.strictObject({ id: uuid }))
    .mutation(({ ctx, input }) => rotateKeyWebhookSecret(ctx.db, ctx.actor, input.id)),
  clearWebhook: adminProcedure
    .input(z.strictObject({ id: uuid }))
    .mutation(({ ctx, input }) => clearKeyWebhook(ctx.db, ctx.actor, input.id)),
  resendDelivery: adminProcedure
    .input(z.strictObject({ id: uuid, deliveryId: z.string().regex(/^msg_[0-9a-f]{32}$/) }))
    .mutation(({ ctx, input }) => resendDelivery(ctx.db, ctx.actor, input.id, input.deliveryId)),
  topUp: adminProcedure
    .input(z.strictObject({ id: uuid, units: z.number().int().min(1).max(1_000_000_000) }))
    .mutation(({ ctx, input }) => topUpKey(ctx.db, ctx.actor, input.id, input.units)),
});
