import { truncated } from '../ui/format';

// The package page compares two versions (`?from_version=&to_version=`), by default the latest with the one before
// it. A version the address names that the package does not have is said to be missing, not
// silently swapped for another ("Versions 1 and 1 have the same terms" for `?from=9&to=1`).

export interface ComparedVersions {
  from: number;
  to: number;
  /** The asked versions the package does not have, as written in the address; empty when both exist. */
  missing: string[];
}

/** The versions to compare among `numbers` (the package's), and the asked ones that do not exist. */
export function comparedVersions(numbers: readonly number[], latest: number, asked: { from?: string; to?: string }): ComparedVersions {
  const exists = (value: string | undefined) => value !== undefined && numbers.includes(Number(value));
  const missing = [asked.from, asked.to].filter((value): value is string => value !== undefined && !exists(value));
  const to = exists(asked.to) ? Number(asked.to) : latest;
  const from = exists(asked.from) ? Number(asked.from) : (numbers.find((version) => version < to) ?? to);
  return { from, to, missing: [...new Set(missing)] };
}

/** "Version 9 does not exist: package starter has versions 1 to 3." */
export function missingVersionsText(slug: string, missing: readonly string[], numbers: readonly number[]): string {
  const named = missing.map((value) => truncated(value, 20));
  const subject =
    named.length === 1
      ? `Version ${named[0]} does not exist`
      : `Versions ${named.slice(0, -1).join(', ')} and ${named.at(-1)} do not exist`;
  const sorted = [...numbers].sort((a, b) => a - b);
  const has =
    sorted.length === 1
      ? `only version ${sorted[0]}`
      : sorted.every((version, index) => version === index + 1)
        ? `versions 1 to ${sorted.length}`
        : `versions ${sorted.join(', ')}`;
  return `${subject}: package ${slug} has ${has}.`;
}
