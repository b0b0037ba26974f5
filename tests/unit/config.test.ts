import { afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '@/server/config';

// Configuration is validated once, at start: a wrong value stops the process with a message
// naming the variable (and never its value, which may be a secret).

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetConfigForTests();
});

function problemWith(name: string, value: string): string {
  process.env[name] = value;
  resetConfigForTests();
  try {
    getConfig();
    return '(accepted)';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('getConfig', () => {
  it.each([
    ['PORT', 'abc'],
    ['NEXTAUTH_URL', 'notaurl'],
    ['NEXTAUTH_SECRET', ''],
    ['DATABASE_URL', 'mysql://user:hunter2secret@db.internal/wgs'],
    ['DATABASE_URL', 'http://db.internal:5432/wgs'],
    ['DATABASE_QUERY_TIMEOUT_MS', '0'],
    ['KEY_CACHE_TTL_MS', '5000'],
    ['CURRENCY', 'XYZ'], // three capitals, but no currency (outside audit)
    ['CURRENCY', 'usd'],
  ])('refuses %s=%j, naming it', (name, value) => {
    const message = problemWith(name, value);
    expect(message).toMatch(new RegExp(`^Invalid configuration:[\\s\\S]*\\b${name}\\b`));
    expect(message).not.toContain('hunter2secret');
  });

  it.each([
    ['120', '120'],
    ['120', '60'],
    ['10', '5'],
  ])('refuses IDEMPOTENCY_LEASE_SECONDS=%s with HOLD_LEASE_SECONDS=%s: a hold outlives its idempotency claim', (idempotency, hold) => {
    process.env.IDEMPOTENCY_LEASE_SECONDS = idempotency;
    expect(problemWith('HOLD_LEASE_SECONDS', hold)).toMatch(
      new RegExp(`^Invalid configuration:[\\s\\S]*HOLD_LEASE_SECONDS: must be greater than IDEMPOTENCY_LEASE_SECONDS \\(${idempotency}\\)`),
    );
    expect(problemWith('HOLD_LEASE_SECONDS', String(Number(idempotency) + 1))).toBe('(accepted)');
  });

  it.each([
    ['DATABASE_URL', 'postgres://u:p@127.0.0.1:5432/wgs'],
    ['DATABASE_URL', 'postgresql://u:p@localhost/wgs?host=/var/run/postgresql'],
    ['NEXTAUTH_URL', 'https://ops.example.com'],
  ])('accepts %s=%j', (name, value) => {
    expect(problemWith(name, value)).toBe('(accepted)');
  });
});
