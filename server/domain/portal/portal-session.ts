import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { getConfig } from '../../config';
import type { PrismaClient } from '../../db/generated/client';
import { ApiError } from '../errors';
import { hashKeySecret, KEY_PATTERN } from '../keys/key-secret';
import { keyInactivity } from '../key-status';
import { noteFailedAuthentication, refuseFailingAddress } from '../rate-limit/auth-failures';

// A customer signs in to the portal with their API key. The session is a random token (the cookie)
// stored as its SHA-256, lasting an hour; it is live only while the key is active (or suspended:
// its holder may still see why, usage and receipts, and change nothing), unexpired and still has
// the secret it was signed in with (a rotation ends it). A wrong key counts towards the same
// per-address failed-authentication limit as /v1.

export const PORTAL_SESSION_SECONDS = 60 * 60;

export interface PortalSession {
  sessionId: string;
  apiKeyId: string;
  keyPrefix: string;
  /** The key's hash when the session began (a rotation changes it). */
  keyHash: string;
  /** active, or suspended (a disputed payment): then the portal changes nothing. */
  keyStatus: 'active' | 'suspended';
  expiresAt: Date;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The portal shows a suspended key too (it changes nothing there); nothing else that is not active. */
const usable = (key: { status: string; expiresAt: Date | null }, now: Date) => [null, 'suspended'].includes(keyInactivity(key, now));

/** Starts a session for an active key; throws 401 (counted) for anything else, 429 past the limit. */
export async function signInWithKey(
  db: PrismaClient,
  input: { secret: string; address: string },
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  refuseFailingAddress(input.address, getConfig().AUTH_FAILURES_PER_MINUTE, now.getTime());
  const secret = input.secret.trim();
  const keyHash = KEY_PATTERN.test(secret) ? hashKeySecret(secret) : null;
  const key = keyHash
    ? await db.apiKey.findUnique({ where: { hash: keyHash }, select: { id: true, status: true, expiresAt: true } })
    : null;
  if (!keyHash || !key || !usable(key, now)) {
    throw (await noteFailedAuthentication(input.address, now.getTime())) ?? new ApiError('invalid_api_key');
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + PORTAL_SESSION_SECONDS * 1000);
  await db.portalSession.create({ data: { id: randomUUID(), tokenHash: hashToken(token), apiKeyId: key.id, keyHash, expiresAt } });
  return { token, expiresAt };
}

/** The live session a cookie's token names, or null (unknown, ended, expired, key rotated or inactive). */
export async function findPortalSession(db: PrismaClient, token: string | undefined, now = new Date()): Promise<PortalSession | null> {
  if (!token || token.length > 200) return null;
  const row = await db.portalSession.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { apiKey: { select: { hash: true, prefix: true, status: true, expiresAt: true } } },
  });
  if (!row || row.endedAt || row.expiresAt <= now) return null;
  const key = row.apiKey;
  if (key.hash !== row.keyHash || !usable(key, now)) return null;
  const keyStatus = key.status as PortalSession['keyStatus'];
  return { sessionId: row.id, apiKeyId: row.apiKeyId, keyPrefix: key.prefix, keyHash: row.keyHash, keyStatus, expiresAt: row.expiresAt };
}

/** Sign-out: the token no longer signs anyone in, on any instance. */
export async function endPortalSession(db: PrismaClient, token: string): Promise<void> {
  await db.portalSession.updateMany({ where: { tokenHash: hashToken(token), endedAt: null }, data: { endedAt: new Date() } });
}

/** Housekeeping: sessions that ended or expired a day ago serve nothing. */
export async function deleteFinishedPortalSessions(db: PrismaClient, now = new Date()): Promise<number> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60 * 1000);
  const { count } = await db.portalSession.deleteMany({ where: { OR: [{ expiresAt: { lt: dayAgo } }, { endedAt: { lt: dayAgo } }] } });
  return count;
}
