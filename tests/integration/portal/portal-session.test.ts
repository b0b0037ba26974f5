import { createHash } from 'node:crypto';
import { NextRequest } from 'next/server';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DELETE as signOutPost, POST as signInRoute } from '@/app/api/portal/session/route';
import { servingConnection } from '@/server/auth/connection';
import { getConfig, resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { revokeKey } from '@/server/domain/keys/manage-keys';
import { findPortalSession, PORTAL_SESSION_SECONDS, signInWithKey } from '@/server/domain/portal/portal-session';
import { clearAuthFailures } from '@/server/domain/rate-limit/auth-failures';
import { freshAddress, keyOnFreshPackage, portalSignIn } from './portal-helpers';

// Signing in to the portal with an API key: the session (a random token, stored hashed, an hour),
// the failed-authentication limit it shares with /v1, and what ends a session.

afterEach(() => {
  delete process.env.NEXTAUTH_URL;
  resetConfigForTests();
});
afterAll(() => disconnectDb());

const signInRequest = (body: unknown, headers: Record<string, string> = {}) =>
  new NextRequest('http://portal.example.com/api/portal/session', {
    method: 'POST',
    headers: { host: 'portal.example.com', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The sign-in route as Next calls it under npm start: inside the connection (from `address`) it came on. */
const signInPost = (request: NextRequest, address = freshAddress()) =>
  servingConnection({ peerAddress: address, target: '/api/portal/session' }, () => signInRoute(request));

describe('portal sign-in', () => {
  it('a good key starts a session of an hour whose token is stored only as its hash', async () => {
    const key = await keyOnFreshPackage();
    const before = Date.now();
    const { token, expiresAt } = await signInWithKey(getPrisma(), { secret: key.secret, address: freshAddress() });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(expiresAt.getTime() - before).toBeGreaterThanOrEqual(PORTAL_SESSION_SECONDS * 1000 - 5);
    expect(expiresAt.getTime() - before).toBeLessThanOrEqual(PORTAL_SESSION_SECONDS * 1000 + 5_000);
    const rows = await getPrisma().portalSession.findMany({ where: { apiKeyId: key.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(await findPortalSession(getPrisma(), token)).toMatchObject({ apiKeyId: key.id, expiresAt });
    expect(await findPortalSession(getPrisma(), `${token}x`)).toBeNull();
    expect(await findPortalSession(getPrisma(), undefined)).toBeNull();
  });

  it('the route sets an httpOnly SameSite=Lax cookie, Secure (and __Host-) over https, and refuses another site', async () => {
    const key = await keyOnFreshPackage();
    const plain = await signInPost(signInRequest({ secret: key.secret }));
    expect(plain.status).toBe(200);
    const cookie = plain.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^wgs_portal=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/i);

    process.env.NEXTAUTH_URL = 'https://portal.example.com';
    resetConfigForTests();
    const secure = await signInPost(signInRequest({ secret: key.secret }, { origin: 'https://portal.example.com' }));
    expect(secure.status).toBe(200);
    expect(secure.headers.get('set-cookie')).toMatch(/^__Host-wgs_portal=[^;]+;.*Secure/i);

    const crossSite = await signInPost(signInRequest({ secret: key.secret }, { origin: 'https://evil.example' }));
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();

    // JSON only: a form or text/plain is what another site's page can post without a preflight.
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      const other = await signInPost(signInRequest({ secret: key.secret }, { 'content-type': contentType }));
      expect(other.status, contentType).toBe(415);
      expect(other.headers.get('set-cookie')).toBeNull();
    }
  });

  it('a wrong, malformed, revoked or expired key is 401 and starts nothing; bad input is 422', async () => {
    const revoked = await keyOnFreshPackage();
    await revokeKey(getSqlDb(), CLI_ACTOR, revoked.id);
    const expired = await keyOnFreshPackage();
    await getPrisma().apiKey.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    for (const secret of [`wgs_live_${'x'.repeat(40)}`, 'not a key', revoked.secret, expired.secret]) {
      const response = await signInPost(signInRequest({ secret }));
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect(response.headers.get('set-cookie')).toBeNull();
    }
    expect(await getPrisma().portalSession.count({ where: { apiKeyId: { in: [revoked.id, expired.id] } } })).toBe(0);
    const invalid = await signInPost(signInRequest({ secret: 'x', id: revoked.id }));
    expect(invalid.status).toBe(422);
  });

  it('wrong keys count towards the failed-authentication limit: past it even the right key is 429', async () => {
    clearAuthFailures();
    const key = await keyOnFreshPackage();
    const address = '10.99.1.1';
    const limit = getConfig().AUTH_FAILURES_PER_MINUTE;
    for (let attempt = 0; attempt < limit; attempt++) {
      await expect(signInWithKey(getPrisma(), { secret: `wgs_live_${'y'.repeat(40)}`, address })).rejects.toMatchObject({
        code: 'invalid_api_key',
      });
    }
    await expect(signInWithKey(getPrisma(), { secret: key.secret, address })).rejects.toMatchObject({ code: 'rate_limited' });
    const route = await signInPost(signInRequest({ secret: key.secret }), address);
    expect(route.status).toBe(429);
    expect(Number(route.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected.
    await expect(signInWithKey(getPrisma(), { secret: key.secret, address: '10.99.1.2' })).resolves.toMatchObject({});
    clearAuthFailures();
  });
});

describe('the end of a portal session', () => {
  it('expires after an hour', async () => {
    const key = await keyOnFreshPackage();
    const { token } = await portalSignIn(key.secret);
    const later = (seconds: number) => new Date(Date.now() + seconds * 1000);
    expect(await findPortalSession(getPrisma(), token, later(PORTAL_SESSION_SECONDS - 60))).not.toBeNull();
    expect(await findPortalSession(getPrisma(), token, later(PORTAL_SESSION_SECONDS + 1))).toBeNull();
  });

  it('ends when the operator revokes the key, or when the key expires', async () => {
    const key = await keyOnFreshPackage();
    const { token } = await portalSignIn(key.secret);
    await revokeKey(getSqlDb(), CLI_ACTOR, key.id);
    expect(await findPortalSession(getPrisma(), token)).toBeNull();

    const expiring = await keyOnFreshPackage();
    const second = await portalSignIn(expiring.secret);
    await getPrisma().apiKey.update({ where: { id: expiring.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect(await findPortalSession(getPrisma(), second.token)).toBeNull();
  });

  it('sign-out ends it on the server and clears the cookie', async () => {
    const key = await keyOnFreshPackage();
    const { token } = await portalSignIn(key.secret);
    const response = await signOutPost(
      new NextRequest('http://portal.example.com/api/portal/session', {
        method: 'DELETE',
        headers: { host: 'portal.example.com', cookie: `wgs_portal=${token}` },
      }),
    );
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(/^wgs_portal=;/);
    expect(await findPortalSession(getPrisma(), token)).toBeNull();
  });
});
