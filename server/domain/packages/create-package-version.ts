import type { PrismaClient } from '../../db/generated/client';
import type { Actor } from '../actor';
import { ApiError, validationIssuesOf } from '../errors';
import { zodValidationError } from '../zod-issues';
import { applyPackages } from './apply-packages';
import { packageDefinitionSchema } from '../../contract/package-schema';

export interface CreateVersionResult {
  slug: string;
  version: number;
  status: 'created' | 'updated' | 'unchanged';
}

/**
 * Creates a package, or a new version of one, from a single definition: the same schema and
 * the same apply as the packages file, so the rules live in one place. An identical definition
 * keeps the current version ("unchanged").
 */
export async function createPackageVersion(
  db: PrismaClient,
  actor: Actor,
  input: { definition: unknown; expectExisting?: boolean; basedOnVersion?: number },
): Promise<CreateVersionResult> {
  const parsed = packageDefinitionSchema.safeParse(input.definition);
  if (!parsed.success) throw zodValidationError(parsed.error, input.definition, 'The package definition is invalid.');
  const definition = parsed.data;
  const result = await applyPackages(
    db,
    actor,
    { providers: {}, packages: [definition] },
    {
      expectExisting: input.expectExisting,
      basedOnVersion: input.basedOnVersion,
    },
  ).catch((error: unknown) => {
    throw withDefinitionPaths(error);
  });
  const applied = result.packages[0]!;
  return { slug: applied.slug, version: applied.version, status: applied.status };
}

/** applyPackages reports paths inside a file (packages.0.x); the form knows only the definition. */
function withDefinitionPaths(error: unknown): unknown {
  const issues = validationIssuesOf(error);
  if (!issues.some((issue) => issue.path.startsWith('packages.0.'))) return error;
  return ApiError.validation(
    issues.map((issue) => ({ ...issue, path: issue.path.replace(/^packages\.0\./, '') })),
    'The package definition is invalid.',
  );
}
