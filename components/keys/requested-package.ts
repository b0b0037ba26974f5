import { truncated } from '../ui/format';

// A link may ask the issue-key form for a package (`/keys/new?package=SLUG`, the package page's
// "Issue a key"): when that package sells no new keys, the form says so instead of silently
// offering another one (issuing on an archived package is refused as `package_archived`).

/** Why the package a link asked for is not offered; null when it is, or when none was asked for. */
export function requestedPackageProblem(
  requested: string | undefined,
  offered: readonly { slug: string }[],
  archived: readonly string[],
): string | null {
  if (requested === undefined || offered.some((pkg) => pkg.slug === requested)) return null;
  const slug = truncated(requested, 63);
  return archived.includes(requested)
    ? `Package ${slug} is archived: it sells no new keys (restore it on its page to sell it again).`
    : `There is no package ${slug}.`;
}
