import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaimValues } from '@/server/domain/billing/claim-sql';
import type { HoldValues } from '@/server/domain/billing/hold-sql';
import { claimAndHoldStatement, rateClaimHoldStatement } from '@/server/domain/billing/reserve-statements';

// Billing's statements are written with named values (sql-template-tag). pg prepares a statement
// once per connection under its name and refuses the same name with another text, so a statement's
// text must never depend on its values; and no statement hands positional placeholders to another.

const scope = (key: string) => ({ apiKeyId: '00000000-0000-4000-8000-000000000001', method: 'POST', path: '/v1/text/generate', key });
const claim = (key: string): ClaimValues => ({
  recordId: '00000000-0000-4000-8000-000000000002',
  scope: scope(key),
  fingerprint: `f-${key}`,
  leaseSeconds: 120,
  retentionHours: 24,
});
const hold = (budget: string | null): HoldValues => ({
  apiKeyId: '00000000-0000-4000-8000-000000000001',
  holdId: '00000000-0000-4000-8000-000000000003',
  units: budget ? 5 : 1,
  operation: 'text.generate',
  requestId: 'req_1',
  concurrency: 4,
  leaseSeconds: 300,
  budget,
  expectedCost: budget ? '0.5' : null,
  surface: budget ? 'openai' : 'v1',
});
const rate = (limit: number) => ({ key: `rpm:${limit}`, limit, windowSeconds: 60 });

describe("billing's statements", () => {
  it('keep one text per name whatever their values, and name each shape apart', () => {
    const paidA = rateClaimHoldStatement({ rate: rate(10), claim: claim('a'), hold: hold(null) });
    const paidB = rateClaimHoldStatement({ rate: rate(99), claim: claim('b'), hold: hold('12.5') });
    const unpaid = rateClaimHoldStatement({ rate: rate(10), claim: claim('a') });
    const afterRedis = claimAndHoldStatement({ claim: claim('a'), hold: hold(null) });
    expect(paidA.text).toBe(paidB.text);
    expect(paidA.values).not.toEqual(paidB.values);
    expect(new Set([paidA.name, unpaid.name, afterRedis.name]).size).toBe(3);
    expect(paidA.text).toContain('wgs_rate_take');
    expect(unpaid.text).not.toContain('unit_holds');
    expect(afterRedis.text).not.toContain('wgs_rate_take');
  });

  it('bind every value by name: no hand-written $n placeholder in the files that hold, claim, capture, release or settle', () => {
    const files = [
      ...readdirSync('server/domain/billing').map((file) => join('server/domain/billing', file)),
      'server/domain/billing/idempotency-store.ts',
      'server/domain/jobs/job-settlement.ts',
      'server/domain/jobs/cancel-job.ts',
    ];
    const positional = files.filter((file) => /\$\d/.test(readFileSync(file, 'utf8')));
    expect(positional).toEqual([]);
  });

  it('are the only statements that move units or idempotency records (ARCHITECTURE.md, "SQL")', () => {
    const moves = [
      /\b(INSERT INTO|UPDATE|DELETE FROM)\s+(idempotency_records|unit_holds)\b/i,
      /\bremaining_units\s*=/i,
      /\bremainingUnits:\s*\{\s*(increment|decrement)/,
      /\b(idempotencyRecord|unitHold)\.(create|update|upsert|delete)/,
    ];
    const outside = sourceFiles('server')
      .filter((file) => !file.startsWith('server/domain/billing/') && !file.startsWith('server/db/generated/'))
      .filter((file) => moves.some((pattern) => pattern.test(readFileSync(file, 'utf8'))));
    expect(outside).toEqual([]);
  });

  it('are named statements everywhere in server/: no hand-numbered $n placeholder in any file (ARCHITECTURE.md, "SQL")', () => {
    const positional = productFiles().filter((file) => /(?<![:\w])\$\d+(?!\w)/.test(readFileSync(file, 'utf8')));
    expect(positional).toEqual([]);
  });

  it('never go through Prisma\'s raw SQL, tagged or Unsafe, but for the advisory lock and NOTIFY of a Prisma transaction (ARCHITECTURE.md, "SQL")', () => {
    const files = productFiles();
    // The scan reads the product's own files, and the pattern finds each form of Prisma's raw SQL.
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('server/domain/reports/margin.ts');
    for (const call of [
      'db.$queryRaw`SELECT 1`',
      'tx.$executeRaw`SELECT 1`',
      "db.$queryRawUnsafe('SELECT 1')",
      "tx.$executeRawUnsafe('x')",
    ]) {
      expect(call).toMatch(PRISMA_RAW);
    }
    const raw = files.filter((file) => PRISMA_RAW.test(readFileSync(file, 'utf8')));
    expect(raw).toEqual(PRISMA_RAW_FILES);
  });

  it('bind values in place: no string-built raw SQL through Prisma anywhere in server/', () => {
    const unsafe = sourceFiles('server').filter((file) => /\$(query|execute)RawUnsafe/.test(readFileSync(file, 'utf8')));
    expect(unsafe.filter((file) => !file.startsWith('server/db/generated/'))).toEqual([]);
  });
});

/** Prisma's raw SQL: `$queryRaw`/`$executeRaw`, tagged or Unsafe. */
const PRISMA_RAW = /\$(query|execute)Raw(Unsafe)?\b/;

// SQL is written two ways (ARCHITECTURE.md, "SQL"): the ORM, and named statements on the pg pool.
// A Prisma interactive transaction takes its row locks through the ORM (an update); the two
// statements it needs that the ORM cannot say (an advisory lock, a NOTIFY), which must commit with
// the ORM's writes around them, are the only Prisma raw SQL, in this one file.
const PRISMA_RAW_FILES = ['server/db/transaction-locks.ts'];

/** The product's own source files (Prisma's generated client aside), sorted. */
function productFiles(): string[] {
  return sourceFiles('server')
    .filter((file) => !file.startsWith('server/db/generated/'))
    .sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, file));
}
