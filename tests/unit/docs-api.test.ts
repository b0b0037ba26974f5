import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from '@/server/contract/error-catalog';
import { jobSchema, uploadSchema } from '@/server/contract/jobs-and-uploads';

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
