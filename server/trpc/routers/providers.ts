import { listProviders } from '../../domain/providers/list-providers';
import { setProviderKeyInput } from '../../domain/providers/provider-key-input';
import { setProviderKey } from '../../domain/providers/set-provider-key';
import { operatorProcedure, router } from '../init';

// The dashboard's providers: their key status, and setting a key (stored encrypted, never sent back).

export const providersRouter = router({
  list: operatorProcedure.query(({ ctx }) => listProviders(ctx.db)),
  setKey: operatorProcedure.input(setProviderKeyInput).mutation(({ ctx, input }) => setProviderKey(ctx.db, ctx.actor, input)),
});
