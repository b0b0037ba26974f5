import { z } from 'zod';
import { listProviders } from '../../domain/providers/list-providers';
import { engineChoices, getProviderSummary, providerOverview } from '../../domain/providers/provider-overview';
import { setProviderKeyInput } from '../../domain/providers/provider-key-input';
import { saveProvider, saveProviderInput } from '../../domain/providers/save-provider';
import { setProviderKey } from '../../domain/providers/set-provider-key';
import { testProvider, testProviderInput } from '../../domain/providers/test-provider';
import { operatorProcedure, router } from '../init';

// The dashboard's providers: their key status, and setting a key (stored encrypted, never sent back).

export const providersRouter = router({
  list: operatorProcedure.query(({ ctx }) => listProviders(ctx.db)),
  setKey: operatorProcedure.input(setProviderKeyInput).mutation(({ ctx, input }) => setProviderKey(ctx.db, ctx.actor, input)),
  /** Each provider with what its type serves, the models its packages name and its last 24 h. */
  overview: operatorProcedure.query(({ ctx }) => providerOverview(ctx.db)),
  get: operatorProcedure
    .input(z.strictObject({ name: z.string().min(1).max(63) }))
    .query(({ ctx, input }) => getProviderSummary(ctx.db, input.name)),
  engineChoices: operatorProcedure.query(({ ctx }) => engineChoices(ctx.db)),
  /** The entry is judged by the packages file's provider schema inside the domain, field by field. */
  save: operatorProcedure.input(saveProviderInput).mutation(({ ctx, input }) => saveProvider(ctx.db, ctx.actor, input)),
  test: operatorProcedure.input(testProviderInput).mutation(({ ctx, input }) => testProvider(ctx.db, ctx.actor, input)),
});
