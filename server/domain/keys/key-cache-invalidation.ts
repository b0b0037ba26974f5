import pg from 'pg';
import sql from 'sql-template-tag';
import { getConfig } from '../../config';
import type { Prisma } from '../../db/generated/client';
import { prepared } from '../../db/named-statement';
import { notifyOnCommit } from '../../db/transaction-locks';
import { clearKeyCache, forgetKeyHash } from './authenticate-key';

// Every instance caches key lookups by hash for KEY_CACHE_TTL_MS. A rotated secret must be refused
// at once everywhere, not within the TTL, so the rotation's transaction NOTIFYs the old hash and
// each instance LISTENs and forgets it when the rotation commits. While an instance's listening
// connection is down it may miss a notice, so it empties its whole cache on every (re)connect.

export const KEY_CACHE_CHANNEL = 'wgs_key_cache';
const RECONNECT_MS = 1_000;

/** Inside the transaction that changes a key's hash: every listening instance forgets it on commit. */
export async function announceKeyHashChange(tx: Prisma.TransactionClient, oldHash: string): Promise<void> {
  await notifyOnCommit(tx, KEY_CACHE_CHANNEL, oldHash);
}

/** The same notice inside a pg transaction (a change that runs whole in one: server/db/pg-transaction.ts). */
export async function announceKeyHashChangeOn(client: pg.PoolClient, oldHash: string): Promise<void> {
  await client.query(prepared('wgs-key-cache-notify', sql`SELECT pg_notify(${KEY_CACHE_CHANNEL}, ${oldHash})`));
}

export interface KeyCacheListener {
  stop(): Promise<void>;
  /** Resolves once the first LISTEN is in place. */
  ready: Promise<void>;
}

/** Listens on its own connection (a pool's would be handed back), reconnecting after a failure. */
export function listenForKeyCacheChanges(connectionString = getConfig().DATABASE_URL ?? ''): KeyCacheListener {
  let stopped = false;
  let client: pg.Client | undefined;
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  async function connect(): Promise<void> {
    if (stopped) return;
    const next = new pg.Client({ connectionString, keepAlive: true });
    client = next;
    next.on('notification', (message) => {
      if (message.channel === KEY_CACHE_CHANNEL && message.payload) forgetKeyHash(message.payload);
    });
    next.on('error', () => retry(next));
    next.on('end', () => retry(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${KEY_CACHE_CHANNEL}`);
      clearKeyCache(); // notices sent while no connection listened are lost: start afresh
      markReady();
    } catch {
      retry(next);
    }
  }

  function retry(failed: pg.Client): void {
    if (stopped || client !== failed) return;
    client = undefined;
    failed.end().catch(() => {});
    clearKeyCache();
    setTimeout(() => void connect(), RECONNECT_MS).unref();
  }

  void connect();
  return {
    ready,
    async stop() {
      stopped = true;
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
