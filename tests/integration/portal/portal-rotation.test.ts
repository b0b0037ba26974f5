import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { authenticateKey, clearKeyCache } from '@/server/domain/keys/authenticate-key';
import { announceKeyHashChange, listenForKeyCacheChanges } from '@/server/domain/keys/key-cache-invalidation';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { findPortalSession } from '@/server/domain/portal/portal-session';
import { createPortalInnerContext } from '@/server/trpc/portal/portal-context';
import { createPortalCaller } from '@/server/trpc/portal/portal-router';
import { expectTrpcError, usage } from '../trpc/helpers';
import type { SmtpInbox } from '../../helpers/smtp-inbox';
import { codeIn } from '../../helpers/smtp-inbox';
import { keyOnFreshPackage, portalSignIn, rotateWithCode, turnMailOff, turnMailOn } from './portal-helpers';

// Rotating a key from the portal, confirmed by the code e-mailed to its buyer: a new secret shown
// once, the old one refused at once (by this instance's key cache and, through LISTEN/NOTIFY,
// every other's), units and history kept, audited, and the portal sessions of the old secret ended.

const bearer = (secret: string) => `Bearer ${secret}`;
const withCache = () => {
  process.env.KEY_CACHE_TTL_MS = '1000';
  resetConfigForTests();
  clearKeyCache();
};

afterEach(() => {
  delete process.env.KEY_CACHE_TTL_MS;
  resetConfigForTests();
  clearKeyCache();
});
let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await turnMailOn();
});
afterAll(async () => {
  await turnMailOff(inbox);
  await disconnectDb();
});

describe('rotating the key from the portal', () => {
  it('gives a new secret once; the old one is refused at once even from a warm key cache; units and history stay', async () => {
    withCache();
    const key = await keyOnFreshPackage('rotate', 50);
    await usage(key.id, 'succeeded', 3);
    await getPrisma().apiKey.update({ where: { id: key.id }, data: { remainingUnits: 47 } });
    const { caller, token } = await portalSignIn(key.secret);
    await authenticateKey(getSqlDb(), bearer(key.secret)); // the old secret is now in the cache

    const rotated = await rotateWithCode(caller, inbox, key.email);
    expect(rotated.secret).toMatch(/^wgs_live_[0-9A-Za-z]{40}$/);
    expect(rotated.prefix).toBe(rotated.secret.slice(0, 13));
    await expect(authenticateKey(getSqlDb(), bearer(key.secret))).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(await authenticateKey(getSqlDb(), bearer(rotated.secret))).toMatchObject({ id: key.id });

    const after = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(after).toMatchObject({ remainingUnits: 47, status: 'active', prefix: rotated.prefix, hash: hashKeySecret(rotated.secret) });
    expect(await getPrisma().usageEvent.count({ where: { apiKeyId: key.id } })).toBe(1);

    const audit = await getPrisma().auditLog.findMany({ where: { targetId: key.id, action: 'key.rotate' } });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'customer', actorId: key.id });
    const recorded = JSON.stringify(audit.map((entry) => [entry.before, entry.after]));
    expect(recorded).toContain(rotated.prefix);
    expect(recorded).not.toContain(rotated.secret);
    expect(recorded).not.toContain(hashKeySecret(rotated.secret));

    // The session signed in with the old secret has ended: the portal refuses it.
    expect(await findPortalSession(getPrisma(), token)).toBeNull();
    await expectTrpcError(
      createPortalCaller(createPortalInnerContext(await findPortalSession(getPrisma(), token))).overview(),
      'UNAUTHORIZED',
    );
    // A stale session object changes nothing more, even with a fresh code.
    await expectTrpcError(rotateWithCode(caller, inbox, key.email), 'UNAUTHORIZED', 'invalid_api_key');
    // Signing in with the new secret works; with the old one it does not.
    await expect(portalSignIn(rotated.secret)).resolves.toMatchObject({ session: { apiKeyId: key.id } });
    await expect(portalSignIn(key.secret)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it("another instance's rotation reaches this instance's key cache through the database at once", async () => {
    withCache();
    const listener = listenForKeyCacheChanges();
    try {
      await listener.ready;
      const key = await keyOnFreshPackage('rotate');
      const other = await keyOnFreshPackage('rotate');
      await authenticateKey(getSqlDb(), bearer(key.secret));
      await authenticateKey(getSqlDb(), bearer(other.secret));
      // What another instance's rotation does to the database; nothing touches this process's cache directly.
      const rotateElsewhere = (id: string, secret: string) =>
        getPrisma().$transaction(async (tx) => {
          await tx.apiKey.update({ where: { id }, data: { hash: hashKeySecret(`${secret}Z`) } });
          await announceKeyHashChange(tx, hashKeySecret(secret));
        });
      await rotateElsewhere(key.id, key.secret);
      await expect
        .poll(
          () =>
            authenticateKey(getSqlDb(), bearer(key.secret)).then(
              () => 'accepted',
              () => 'refused',
            ),
          { timeout: 200, interval: 10 },
        )
        .toBe('refused');
      await listener.stop();
      // Without a listener the cached lookup would go on answering until the TTL ran out.
      await getPrisma().apiKey.update({ where: { id: other.id }, data: { hash: hashKeySecret(`${other.secret}Z`) } });
      await expect(authenticateKey(getSqlDb(), bearer(other.secret))).resolves.toMatchObject({ id: other.id });
    } finally {
      await listener.stop();
    }
  });

  it('one code entered three times at once gives one new secret', async () => {
    const key = await keyOnFreshPackage('rotate');
    const { caller } = await portalSignIn(key.secret);
    await caller.requestChange({ action: 'rotate_key' });
    const code = codeIn(await inbox.waitForMail(key.email));
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => caller.confirmChange({ code })));
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const secret = (won[0] as PromiseFulfilledResult<{ secret: string }>).value.secret;
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).hash).toBe(hashKeySecret(secret));
    expect(await getPrisma().auditLog.count({ where: { targetId: key.id, action: 'key.rotate' } })).toBe(1);
  });

  it('a revoked key cannot be rotated', async () => {
    const key = await keyOnFreshPackage('rotate');
    const { caller } = await portalSignIn(key.secret);
    await getPrisma().apiKey.update({ where: { id: key.id }, data: { status: 'revoked', revokedAt: new Date() } });
    await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'FORBIDDEN', 'forbidden');
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).hash).toBe(hashKeySecret(key.secret));
  });
});
