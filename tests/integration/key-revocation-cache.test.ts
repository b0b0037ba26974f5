import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getConfig, resetConfigForTests } from '@/server/config';
import { disconnectDb, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { authenticateKey, clearKeyCache } from '@/server/domain/keys/authenticate-key';
import { KEY_CACHE_CHANNEL } from '@/server/domain/keys/key-cache-invalidation';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { createTestKey } from '../helpers/api';

// A revoked key is refused at once, not when the key cache's entry runs out: this process forgets
// it, and every other instance hears of it through the database (LISTEN/NOTIFY), as for a rotation.

const bearer = (secret: string) => `Bearer ${secret}`;

afterEach(() => {
  delete process.env.KEY_CACHE_TTL_MS;
  resetConfigForTests();
  clearKeyCache();
});
afterAll(() => disconnectDb());

describe('revoking a key', () => {
  it('is refused at once by a warm key cache, and announced to the other instances when it commits', async () => {
    process.env.KEY_CACHE_TTL_MS = '1000';
    resetConfigForTests();
    clearKeyCache();
    const listener = new pg.Client({ connectionString: getConfig().DATABASE_URL });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => message.channel === KEY_CACHE_CHANNEL && heard.push(message.payload ?? ''));
    await listener.query(`LISTEN ${KEY_CACHE_CHANNEL}`);
    try {
      const { key, id } = await createTestKey();
      await authenticateKey(getSqlDb(), bearer(key)); // now cached for a second
      await revokeKey(getSqlDb(), CLI_ACTOR, id);
      await expect(authenticateKey(getSqlDb(), bearer(key))).rejects.toMatchObject({ code: 'invalid_api_key' });
      await expect.poll(() => heard, { timeout: 2000, interval: 20 }).toContain(hashKeySecret(key));
    } finally {
      await listener.end();
    }
  });
});
