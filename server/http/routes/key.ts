import { getSqlDb } from '../../db/client';
import { keySchema } from '../../contract/key';
import { describeKey } from '../../domain/keys/describe-key';
import { defineGetRoute } from '../pipeline';

// GET /v1/key (an extension of v1): any active key reads its own description; never charged.

export const getKeyRoute = defineGetRoute({
  path: '/v1/key',
  operationId: 'getKey',
  operation: 'key.get',
  summary: 'Describe the calling key (extension of v1)',
  response: {
    status: 200,
    schema: keySchema,
    description: "The key's package, the operations and settings it allows, its limits, remaining units and expiry. Never charged.",
  },
  errors: [401, 429, 500, 503],
  rateLimited: true,
  handle: (ctx) => describeKey(getSqlDb(), ctx.key.id),
});
