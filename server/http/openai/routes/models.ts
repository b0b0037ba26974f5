import { getPrisma } from '../../../db/client';
import type { RouteContext } from '../../route-context';
import { modelNotFound } from '../openai-errors';
import { modelObject, modelsOf } from '../openai-models';
import { defineOpenAIGetRoute } from '../openai-route';

// GET /openai/v1/models and /openai/v1/models/{model}: what the key's package sells, each model
// naming the operation it runs; never an engine, a provider or its model.

/** When the key's package version was made: the models' `created`. */
async function versionCreated(ctx: RouteContext): Promise<number> {
  const version = await getPrisma().packageVersion.findUniqueOrThrow({
    where: { id: ctx.key.packageVersionId },
    select: { createdAt: true },
  });
  return Math.floor(version.createdAt.getTime() / 1000);
}

export const listModelsRoute = defineOpenAIGetRoute({
  path: '/openai/v1/models',
  operationId: 'listModels',
  operation: 'models.list',
  summary: "List the models of the key's package",
  handle: async (ctx) => {
    const created = await versionCreated(ctx);
    return { object: 'list', data: modelsOf(ctx.key).map((entry) => modelObject(entry, created)) };
  },
});

export const getModelRoute = defineOpenAIGetRoute({
  path: '/openai/v1/models/{model}',
  operationId: 'retrieveModel',
  operation: 'models.get',
  summary: "Retrieve a model of the key's package",
  handle: async (ctx) => {
    const entry = modelsOf(ctx.key).find((candidate) => candidate.id === ctx.params.model);
    if (!entry) throw modelNotFound(ctx.params.model ?? '');
    return modelObject(entry, await versionCreated(ctx));
  },
});
