import { z } from 'zod';
import { getSqlDb } from '../../db/client';
import { listProviders } from '../../domain/providers/list-providers';
import { engineChoices, getProviderSummary, providerOverview } from '../../domain/providers/provider-overview';
import { setProviderKeyInput } from '../../domain/providers/provider-key-input';
import { saveProvider, saveProviderInput } from '../../domain/providers/save-provider';
import { setProviderKey } from '../../domain/providers/set-provider-key';
import { testProvider, testProviderInput } from '../../domain/providers/test-provider';
import { adminProcedure, ownerProcedure, viewerProcedure, router } from '../init';

// The dashboard's providers: their key status, and setting a key (stored encrypted, never sent back).

export const providersRouter = router({
  list: viewerProcedure.query(({ ctx }) => listProviders(ctx.db)),
  setKey: ownerProcedure.input(setProviderKeyInput).mutation(({ ctx, input }) => setProviderKey(ctx.db, ctx.actor, input)),
  /** Each provider with what its type serves, the models its packages name and its last 24 h. */
  overview: viewerProcedure.query(({ ctx }) => providerOverview(ctx.db, getSqlDb())),
  get: viewerProcedure
    .input(z.strictObject({ name: z.string().min(1).max(63) }))
    .query(({ ctx, input }) => getProviderSummary(ctx.db, getSqlDb(), input.name)),
  engineChoices: viewerProcedure.query(({ ctx }) => engineChoices(ctx.db, getSqlDb())),
  /** The entry is judged by the packages file's provider schema inside the domain, field by field. */
  save: adminProcedure.input(saveProviderInput).mutation(({ ctx, input }) => saveProvider(ctx.db, ctx.actor, input)),
  test: adminProcedure.input(testProviderInput).mutation(({ ctx, input }) => testProvider(ctx.db, getSqlDb(), ctx.actor, input)),
});
