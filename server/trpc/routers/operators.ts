import { z } from 'zod';
import { getSqlDb } from '../../db/client';
import { setOperatorDisabled } from '../../domain/operators/disable-operator';
import { listOperators, setOperatorRole } from '../../domain/operators/manage-operators';
import { OPERATOR_ROLES } from '../../contract/dashboard/roles';
import { ownerProcedure, router } from '../init';

// Operators and their roles: an owner's business only (the CLI does the same from the host).

const email = z.string().trim().min(3).max(320);

export const operatorsRouter = router({
  list: ownerProcedure.query(({ ctx }) => listOperators(ctx.db)),
  setRole: ownerProcedure
    .input(z.strictObject({ email, role: z.enum(OPERATOR_ROLES) }))
    .mutation(({ ctx, input }) => setOperatorRole(getSqlDb(), ctx.actor, input)),
  setDisabled: ownerProcedure
    .input(z.strictObject({ email, disabled: z.boolean() }))
    .mutation(({ ctx, input }) => setOperatorDisabled(getSqlDb(), ctx.actor, input.email, input.disabled)),
});
