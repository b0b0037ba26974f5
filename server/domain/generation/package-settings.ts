import { ApiError } from '../errors';
import type { Operation } from '../operations';
import type { PackageOperations } from '../packages/package-schema';
import type { AuthenticatedKey } from '../keys/authenticate-key';

// Settings locked by the key's package version (CONTRACT.md §6): an omitted field takes the
// package's default (the first listed value); a value the package does not list is 422
// with issue code `not_allowed_by_package`.

export function operationSettings<O extends Operation>(key: AuthenticatedKey, operation: O): NonNullable<PackageOperations[O]> {
  const settings = key.operations[operation];
  if (!settings) throw new ApiError('forbidden'); // the scope step already refused this; kept as a guard
  return settings as NonNullable<PackageOperations[O]>;
}

export function notAllowed(path: string, value: unknown, allowed: readonly unknown[]): ApiError {
  const list = allowed.map((v) => JSON.stringify(v)).join(', ');
  return ApiError.validation([
    {
      path,
      code: 'not_allowed_by_package',
      message: `${path}: ${JSON.stringify(value)} is not allowed by this key's package (allowed: ${list}).`,
    },
  ]);
}

/** The requested value if the package allows it, else the package default; `fallback` when the package sets no list. */
export function allowedValue<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined, fallback: T): T;
export function allowedValue<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined): T | undefined;
export function allowedValue<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined, fallback?: T): T | undefined {
  if (!allowed) return requested ?? fallback;
  if (requested === undefined) return allowed[0];
  if (!allowed.includes(requested)) throw notAllowed(path, requested, allowed);
  return requested;
}
