import { describe, expect, it } from 'vitest';
import { comparedVersions, missingVersionsText } from '@/components/packages/compared-versions';

// `/packages/<slug>?from_version=9&to_version=1` for a package without version 9 said "Versions 1
// and 1 have the same terms." (dashboard audit): a version the address names that does not exist is said to.

describe("the package page's compared versions", () => {
  it('names an asked version the package does not have, and compares nothing in its place', () => {
    const asked = comparedVersions([2, 1], 2, { from: '9', to: '1' });
    expect(asked.missing).toEqual(['9']);
    expect(missingVersionsText('starter', asked.missing, [2, 1])).toBe('Version 9 does not exist: package starter has versions 1 to 2.');
    expect(comparedVersions([1], 1, { from: '9' }).missing).toEqual(['9']);
    expect(missingVersionsText('solo', ['9', 'x'], [1])).toBe('Versions 9 and x do not exist: package solo has only version 1.');
  });

  it('compares the versions asked for, by default the latest with the one before it', () => {
    expect(comparedVersions([3, 2, 1], 3, {})).toEqual({ from: 2, to: 3, missing: [] });
    expect(comparedVersions([3, 2, 1], 3, { from: '1', to: '2' })).toEqual({ from: 1, to: 2, missing: [] });
    expect(comparedVersions([3, 2, 1], 3, { to: '2' })).toEqual({ from: 1, to: 2, missing: [] });
  });
});
