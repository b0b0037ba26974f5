import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleBuild } from '../../scripts/lib/ensure-build';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'wgs-build-'));
  roots.push(root);
  mkdirSync(join(root, 'server/contract'), { recursive: true });
  writeFileSync(join(root, 'server/contract/rules.ts'), 'export {};');
  writeFileSync(join(root, 'package.json'), '{}');
  return root;
}

const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

describe('staleBuild (npm start builds when it says why)', () => {
  it('no build, a build older than a source file or folder, and a current build', () => {
    const root = project();
    expect(staleBuild(root, '.next')).toBe('no complete build found');

    mkdirSync(join(root, '.next'));
    writeFileSync(join(root, '.next/BUILD_ID'), 'x'); // written midway through a build: not enough
    expect(staleBuild(root, '.next')).toBe('no complete build found');
    writeFileSync(join(root, '.next/export-marker.json'), '{}');
    for (const path of ['server/contract/rules.ts', 'server/contract', 'server', 'package.json']) at(join(root, path), 1_000);
    at(join(root, '.next/export-marker.json'), 2_000);
    expect(staleBuild(root, '.next')).toBeUndefined();

    at(join(root, 'server/contract/rules.ts'), 3_000); // an edit, a git pull
    expect(staleBuild(root, '.next')).toBe('the code changed since the last build');
    at(join(root, 'server/contract/rules.ts'), 1_000);
    at(join(root, 'server/contract'), 3_000); // a file added or deleted
    expect(staleBuild(root, '.next')).toBe('the code changed since the last build');
    at(join(root, 'server/contract'), 1_000);
    // Files outside what the build reads (tests, docs) do not matter, nor the server beyond its
    // contract: Next loads it from dist/ at run time (the server package), its own build holds none of it.
    writeFileSync(join(root, 'README.md'), 'changed');
    mkdirSync(join(root, 'server/domain'));
    writeFileSync(join(root, 'server/domain/rules.ts'), 'export {};');
    expect(staleBuild(root, '.next')).toBeUndefined();
  });
});
