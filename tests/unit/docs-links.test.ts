import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every relative link in the project's Markdown files names a file that exists, and an anchor
// (#section) names a heading of that file, as GitHub writes heading anchors.

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', '.data', 'test-results', 'playwright-report', 'artifacts', 'fixtures']);

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
