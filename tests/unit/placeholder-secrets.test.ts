import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { lowEntropyReason, placeholderSecrets, refusePlaceholderSecrets } from '@/server/instance/placeholder-secrets';
import { requireProductionSettings } from '@/server/instance/production-mode';
import { readConfig } from '@/server/config';

const strong = () => randomBytes(32).toString('base64');
const good = () => ({
  NODE_ENV: 'production' as const,
  DATABASE_URL: `postgres://wgs:${randomBytes(12).toString('hex')}@db.internal:5432/wgs`,
  SIGNING_SECRET: strong(),
  NEXTAUTH_SECRET: strong(),
  NEXTAUTH_URL: 'https://wgs.example.com',
  PROVIDER_KEYS_SECRET: strong(),
});

describe('production refuses placeholder and guessable secrets', () => {
  it('accepts generated secrets (openssl rand -base64 32, -hex 32, a 16-character token)', () => {
    for (let round = 0; round < 200; round++) {
      expect(lowEntropyReason(strong())).toBeUndefined();
      expect(lowEntropyReason(randomBytes(32).toString('hex'))).toBeUndefined();
      expect(lowEntropyReason(randomBytes(12).toString('base64url'))).toBeUndefined();
    }
    expect(placeholderSecrets(good())).toEqual([]);
    expect(() => requireProductionSettings(readConfig(good()), 'app', good())).not.toThrow();
  });

  it('finds values typed by hand: short, few characters, repeated, or a run', () => {
    expect(lowEntropyReason('secret')).toMatch(/low entropy/);
    expect(lowEntropyReason('a'.repeat(64))).toMatch(/low entropy/);
    expect(lowEntropyReason('passwordpasswordpasswordpassword')).toMatch(/repeats itself/);
    expect(lowEntropyReason('abcdefghijklmnopqrstuvwxyz0123456789')).toMatch(/run/);
  });

  it('names each variable in one line, never its value: a CHANGE-ME marker, an example value (marker or not), a weak secret, a URL password', () => {
    const env = {
      ...good(),
      SIGNING_SECRET: 'CHANGE-ME-at-least-32-characters-long-secret',
      NEXTAUTH_SECRET: 'another-random-secret',
      PROVIDER_KEYS_SECRET: 'passwordpasswordpasswordpassword',
      DATABASE_URL: 'postgres://wgs:CHANGE-ME@postgres.example.internal:5432/wgs',
      OPENAI_API_KEY: 'CHANGE-ME',
      METRICS_TOKEN: 'metrics-token-ok-but-weak-aaaaaaaaaaaaaaaaaaaa',
    };
    expect(placeholderSecrets(env)).toEqual([
      'SIGNING_SECRET (still the CHANGE-ME placeholder)',
      "NEXTAUTH_SECRET (an example file's value)",
      'OPENAI_API_KEY (still the CHANGE-ME placeholder)',
      'DATABASE_URL (its password is still the CHANGE-ME placeholder)',
      'PROVIDER_KEYS_SECRET (low entropy (it repeats itself))',
      'METRICS_TOKEN (low entropy (it repeats itself))',
    ]);
    let message = '';
    try {
      refusePlaceholderSecrets(env);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('production mode refuses placeholder and guessable secrets: SIGNING_SECRET');
    expect(message).not.toContain('passwordpassword');
    expect(() => requireProductionSettings(readConfig(env), 'worker', env)).toThrow(/NEXTAUTH_SECRET/);
  });
});
