import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link in the project's Markdown files names a file that exists, and an anchor
// (#section) names a heading of that file, as GitHub writes heading anchors.

const root = fileURLToPath(new URL('../..', import.meta.url));
// dist* is build output: npm test builds while this runs (dist.new is renamed to dist at the end).
const SKIP = new Set(['node_modules', '.git', '.data', 'test-results', 'playwright-report', 'artifacts', 'fixtures', 'dist', 'dist.new']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIP.has(name) || name.startsWith('.next')) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!.replaceAll('`', ''))));
}

function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe('links between the Markdown files', () => {
  const files = markdownFiles(root);

  it('finds the documents', () => {
    expect(files.map((file) => relative(root, file))).toEqual(
      expect.arrayContaining(['README.md', 'ARCHITECTURE.md', 'docs/operating.md']),
    );
  });

  for (const file of files) {
    it(`${relative(root, file)}: every relative link resolves`, () => {
      const broken: string[] = [];
      for (const link of linksOf(file)) {
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? file : resolve(dirname(file), decodeURI(path));
        if (!existsSync(target)) broken.push(`${link}: no such file`);
        else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${link}: no such heading`);
      }
      expect(broken).toEqual([]);
    });
  }
});

// ARCHITECTURE.md is the code map: every path it names in a code span (`server/http/`,
// `app/v1/**/route.ts`, `app/api/{auth,trpc}`) exists. A glob stands for its fixed part.
const PATH_ROOTS = ['server', 'app', 'scripts', 'components', 'tests', 'prisma', 'docs'];

function codePathsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
  const startsWithRoot = new RegExp(`^(?:${PATH_ROOTS.join('|')})(?:/|$)`);
  return spans
    .filter((span) => startsWithRoot.test(span) && !/\s/.test(span))
    .flatMap((span) => {
      const braces = /\{([^}]+)\}/.exec(span);
      return braces ? braces[1]!.split(',').map((part) => span.replace(braces[0], part)) : [span];
    });
}

/** The part of a path before its first glob segment (`app/v1/**\/route.ts` → `app/v1`). */
const fixedPart = (path: string) =>
  path
    .split('/')
    .slice(0, path.split('/').findIndex((segment) => segment.includes('*')) >>> 0)
    .join('/');

describe('paths named in ARCHITECTURE.md', () => {
  const paths = codePathsOf(join(root, 'ARCHITECTURE.md'));

  it('finds the code map', () => {
    expect(paths).toEqual(expect.arrayContaining(['server/http/', 'server/domain/', 'scripts/start.ts']));
  });

  it('every file and folder it names exists', () => {
    const missing = paths.filter((path) => !existsSync(join(root, fixedPart(path))));
    expect(missing).toEqual([]);
  });

  it('every file it names by a shorter path (`edge/direct-dispatch.ts`, `reply-limits.ts`) exists somewhere', () => {
    const files = sourceFiles();
    const missing = shortPathsOf(join(root, 'ARCHITECTURE.md')).filter(
      (short) => !files.some((file) => file === short || file.endsWith(`/${short}`)),
    );
    expect(missing).toEqual([]);
  });
});

// A code span that names a file without its root: no space or glob, a source file's extension.
const SHORT_PATH = /^[\w.@[\]()-]+(?:\/[\w.@[\]()-]+)*\.(?:ts|tsx|mjs|cjs|js|sql|css|md|json|yaml|yml|prisma)$/;

function shortPathsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const startsWithRoot = new RegExp(`^(?:${PATH_ROOTS.join('|')})/`);
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim());
  return [...new Set(spans.filter((span) => SHORT_PATH.test(span) && !startsWithRoot.test(span)))];
}

/** Every file of the project (its roots and top level), as paths from the root. */
function sourceFiles(): string[] {
  const found = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'generated') walk(path);
      } else found.push(path);
    }
  };
  for (const dir of PATH_ROOTS) walk(dir);
  return found;
}
