import { ApiError, type ValidationIssue } from '../errors';
import type { Operation } from '../operations';
import type { PackageOperations } from '../../contract/package-schema';
import type { AuthenticatedKey } from '../keys/authenticate-key';

// Settings locked by the key's package version (CONTRACT.md §6): an omitted field takes the
// package's default (the first listed value); a value the package does not list is 422
// with issue code `not_allowed_by_package`, one issue per such field, all reported at once.

export function operationSettings<O extends Operation>(key: AuthenticatedKey, operation: O): NonNullable<PackageOperations[O]> {
  const settings = key.operations[operation];
  if (!settings) throw new ApiError('forbidden'); // the scope step already refused this; kept as a guard
  return settings as NonNullable<PackageOperations[O]>;
}

function notAllowedIssue(path: string, value: unknown, allowed: readonly unknown[]): ValidationIssue {
  const list = allowed.map((v) => JSON.stringify(v)).join(', ');
  return {
    path,
    code: 'not_allowed_by_package',
    message: `${path}: ${JSON.stringify(value)} is not allowed by this key's package (allowed: ${list}).`,
  };
}

/** Collects the request's settings against the package, then refuses them all in one 422 (`done`). */
export class PackageSettingsCheck {
  private readonly issues: ValidationIssue[] = [];

  /** The requested value if the package allows it, else the package default; `fallback` when the package sets no list. */
  value<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined, fallback: T): T;
  value<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined): T | undefined;
  value<T>(path: string, requested: T | undefined, allowed: readonly T[] | undefined, fallback?: T): T | undefined {
    if (!allowed) return requested ?? fallback;
    if (requested === undefined) return allowed[0];
    if (!allowed.includes(requested)) this.issues.push(notAllowedIssue(path, requested, allowed));
    return requested;
  }

  /**
   * A language tag: BCP 47 tags are case-insensitive (`EN-us` is `en-US`), so the package's
   * entry is matched in any case, and its own spelling is what the engine gets.
   */
  language(path: string, requested: string | undefined, allowed: readonly string[] | undefined): string | undefined {
    if (!allowed || requested === undefined) return this.value(path, requested, allowed);
    const match = allowed.find((tag) => tag.toLowerCase() === requested.toLowerCase());
    if (match === undefined) this.issues.push(notAllowedIssue(path, requested, allowed));
    return match ?? requested;
  }

  refuse(issue: ValidationIssue): void {
    this.issues.push(issue);
  }

  /** Throws the 422 naming every setting the package does not allow, if any. */
  done(): void {
    if (this.issues.length > 0) throw ApiError.validation(this.issues);
  }
}
