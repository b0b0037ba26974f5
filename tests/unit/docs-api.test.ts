import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '@/server/contract/error-catalog';
import { jobSchema, uploadSchema } from '@/server/contract/jobs-and-uploads';
import { IDEMPOTENCY_KEY_PATTERN } from '@/server/contract/values';

// docs/api.md is written by hand; this keeps its tables to the code's catalog and schemas.
const page = readFileSync('docs/api.md', 'utf8');
const section = (title: string) => page.slice(page.indexOf(`## ${title}\n`), page.indexOf('\n## ', page.indexOf(`## ${title}\n`) + 1));
const firstCells = (text: string, column: number) =>
  text
    .split('\n')
    .filter((line) => /^\| [^-]/.test(line))
    .slice(1)
    .map((line) => line.split('|')[column]!.trim());

describe('docs/api.md', () => {
  it('lists every error code with its status, and no other', () => {
    const rows = section('Errors')
      .split('\n')
      .filter((line) => /^\| \d{3} /.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const listed = Object.fromEntries(rows.map((cells) => [cells[2]!.replaceAll('`', ''), Number(cells[1])]));
    expect(listed).toEqual(Object.fromEntries(Object.entries(ERROR_CATALOG).map(([code, { status }]) => [code, status])));
  });

  it('lists every field of the Job and the Upload, and no other', () => {
    expect(firstCells(section('Job'), 1).map((cell) => cell.replaceAll('`', ''))).toEqual(Object.keys(jobSchema.shape));
    expect(firstCells(section('Upload'), 1).map((cell) => cell.replaceAll('`', ''))).toEqual(Object.keys(uploadSchema.shape));
  });
});

describe('the docs’ examples', () => {
  it('send Idempotency-Keys the service accepts (getting-started.md’s upload step sent a 7-character one: 400)', () => {
    const pages = [
      'README.md',
      ...readdirSync('docs')
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const sent = pages.flatMap((path) =>
      // As curl sends it (-H "Idempotency-Key: …") or as code does ('Idempotency-Key': '…').
      [
        ...readFileSync(path, 'utf8').matchAll(
          /-H\s*["']Idempotency-Key:\s*([^"']+)["']|["']Idempotency-Key["']\s*:\s*["'`]([^"'`]+)["'`]/gi,
        ),
      ]
        .map((match) => (match[1] ?? match[2])!)
        .filter((value) => !value.includes('$')) // a shell variable makes it at run time
        .map((value) => ({ path, value })),
    );
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.filter(({ value }) => !IDEMPOTENCY_KEY_PATTERN.test(value))).toEqual([]);
  });
});
