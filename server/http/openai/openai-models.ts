import { OPERATIONS, type Operation } from '../../contract/values';
import type { AuthenticatedKey } from '../../domain/keys/authenticate-key';
import { modelNotFound, refuseParam } from './openai-errors';

// Models are the package's operations: each operation the key's package sells answers to its own
// name as a model id (`text.generate`) and to the aliases its settings give (`model_aliases`,
// `gpt-4o-mini`), so an application keeps its model string. Engines, providers and their models
// are the operator's and are never shown.

export interface ModelEntry {
  id: string;
  operation: Operation;
}

/** Every model id the key's package answers, in the operations' order, each operation's own name first. */
export function modelsOf(key: AuthenticatedKey): ModelEntry[] {
  return OPERATIONS.flatMap((operation) => {
    const settings = key.operations[operation];
    if (!settings) return [];
    return [operation, ...(settings.model_aliases ?? [])].map((id) => ({ id, operation }));
  });
}

/**
 * The operation a request's `model` runs, among those this path serves; 404 `model_not_found` for
 * any other. Where OpenAI's own API has a default model (images, videos: `defaultsToPath`), a
 * request without one runs the path's operation.
 */
export function resolveModel(
  key: AuthenticatedKey,
  model: unknown,
  served: readonly Operation[],
  defaultsToPath = false,
): { id: string; operation: Operation } {
  const asked = model === undefined && defaultsToPath && served.length === 1 ? served[0] : model;
  if (asked !== undefined && typeof asked !== 'string') {
    throw refuseParam('model', 'model must be a string: one of GET /openai/v1/models', 'invalid_type');
  }
  if (!asked) throw refuseParam('model', 'you must provide a model parameter: one of GET /openai/v1/models', 'missing_required_parameter');
  const entry = modelsOf(key).find((candidate) => candidate.id === asked && served.includes(candidate.operation));
  if (!entry) throw modelNotFound(asked);
  return entry;
}

/** A model as OpenAI lists it, naming the operation it runs. */
export function modelObject(entry: ModelEntry, created: number) {
  return { id: entry.id, object: 'model', created, owned_by: 'workflow-generation-service', operation: entry.operation };
}
