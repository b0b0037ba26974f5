import type { PackageVersionView } from './list-packages';

// What changed between two versions of a package, field by field, in the packages file's terms:
// operators compare terms ("quota_units 1000 -> 2000"), not two pretty-printed documents.

export interface VersionChange {
  /** Dotted path in the packages-file definition, e.g. limits.requests_per_minute. */
  path: string;
  kind: 'added' | 'removed' | 'changed';
  before: unknown;
  after: unknown;
}

type Definition = Pick<PackageVersionView, 'name' | 'quota_units' | 'limits' | 'unit_price' | 'operations' | 'sale' | 'openai_compatible'>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Leaves of a definition by dotted path; a list is one leaf (its order is its default). */
function flatten(value: unknown, prefix: string, into: Map<string, unknown>): Map<string, unknown> {
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) if (item !== undefined) flatten(item, prefix ? `${prefix}.${key}` : key, into);
  } else {
    into.set(prefix, value);
  }
  return into;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The definition a version was created from (what the packages file and the form speak). */
export function definitionOf(version: Definition) {
  const { name, quota_units, limits, unit_price, operations, sale, openai_compatible } = version;
  return {
    name,
    quota_units,
    limits,
    ...(unit_price !== undefined ? { unit_price } : {}),
    ...(sale ? { sale } : {}),
    ...(openai_compatible ? { openai_compatible } : {}),
    operations,
  };
}

/** Every changed leaf between two definitions, in the order the fields are written. */
export function diffDefinitions(before: unknown, after: unknown): VersionChange[] {
  const old = flatten(before, '', new Map());
  const next = flatten(after, '', new Map());
  const paths = [...new Set([...old.keys(), ...next.keys()])];
  return paths.flatMap((path): VersionChange[] => {
    const a = old.get(path);
    const b = next.get(path);
    if (!old.has(path)) return [{ path, kind: 'added', before: undefined, after: b }];
    if (!next.has(path)) return [{ path, kind: 'removed', before: a, after: undefined }];
    return same(a, b) ? [] : [{ path, kind: 'changed', before: a, after: b }];
  });
}

export const diffVersions = (before: Definition, after: Definition) => diffDefinitions(definitionOf(before), definitionOf(after));
