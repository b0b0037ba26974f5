import type { PackageDefinition } from '../../contract/package-schema';

/**
 * A package definition in the one form its versions are compared and stored in: what a file may
 * write two ways is written one way, so that writing it the other way makes no new version
 * (packages audit: `["local"]` for `"local"`, and `openai_compatible` holding only its default,
 * each made a version whose diff was empty or named no change of terms).
 */
export function canonicalDefinition(definition: PackageDefinition): PackageDefinition {
  const operations = Object.fromEntries(
    Object.entries(definition.operations).map(([name, settings]) => [
      name,
      settings && Array.isArray(settings.engine) && settings.engine.length === 1 ? { ...settings, engine: settings.engine[0]! } : settings,
    ]),
  ) as PackageDefinition['operations'];
  const { openai_compatible: openaiCompatible, ...rest } = definition;
  return { ...rest, operations, ...(openaiCompatible?.require_idempotency_key ? { openai_compatible: openaiCompatible } : {}) };
}
