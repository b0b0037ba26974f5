// The "bare floor" of `npm run bench`: a plain node:http server with pg that does the same
// essential database work per paid request as the product's text.generate, and nothing else:
// key lookup (cached in memory), the rate point + idempotency claim + unit hold (one statement,
// provisional commit), record the usage (capture the hold + usage event + stored response,
// durable commit). The very statements of server/domain/billing/ (imported, not copied), on the
// same tables and the same two pools; no Next.js, no zod, no pipeline.
// It tells how much of the product's cost per request is the database work itself.
//
// Run: node --import tsx scripts/bench/bare-floor.ts   (env DATABASE_URL, PORT, HOST)
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { rateClaimHoldStatement, type RateClaimHoldRow } from '../../server/domain/billing/reserve-statements';
import { captureHold } from '../../server/domain/billing/unit-holds';
import { RESERVE_PAID, writeBatched } from '../../server/domain/billing/batched-writes';
import { releaseIdempotencyKey } from '../../server/domain/billing/idempotency-store';
import { ASYNC_COMMIT, PLAN_BY_INDEX, startupOptions } from '../../server/db/startup-options';

interface KeyRow {
  id: string;
  version_id: string;
  concurrency: number;
  rpm: number;
  units: number;
}

// The product's pools, with the settings they ask for at startup (its defaults).
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 20,
  idleTimeoutMillis: 30_000,
  ...startupOptions([PLAN_BY_INDEX]),
});
pool.on('error', () => {});
const provisionalPool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  idleTimeoutMillis: 30_000,
  ...startupOptions([PLAN_BY_INDEX, ASYNC_COMMIT]),
});
provisionalPool.on('error', () => {});
const db = { pool, provisional: provisionalPool };
const keys = new Map<string, KeyRow | null>();

async function lookupKey(secret: string): Promise<KeyRow | null> {
  const hash = createHash('sha256').update(secret).digest('hex');
  if (keys.has(hash)) return keys.get(hash)!;
  const { rows } = await pool.query<KeyRow>({
    name: 'floor-key',
    text: `SELECT k.id, v.id AS version_id, v.concurrency, v.requests_per_minute AS rpm,
                  (v.operations->'text.generate'->>'units')::int AS units
             FROM api_keys k JOIN package_versions v ON v.id = k.package_version_id
            WHERE k.hash = $1 AND k.status = 'active'`,
    values: [hash],
  });
  keys.set(hash, rows[0] ?? null);
  return rows[0] ?? null;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'POST' || req.url !== '/v1/text/generate') return send(res, 404, '{"error":{"code":"not_found"}}');
  const secret = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const key = secret ? await lookupKey(secret) : null;
  if (!key) return send(res, 401, '{"error":{"code":"invalid_api_key"}}');
  const idempotencyKey = req.headers['idempotency-key'];
  if (typeof idempotencyKey !== 'string') return send(res, 400, '{"error":{"code":"missing_idempotency_key"}}');
  const text = await readBody(req);
  let body: { input?: unknown };
  try {
    body = JSON.parse(text) as { input?: unknown };
  } catch {
    return send(res, 400, '{"error":{"code":"invalid_request"}}');
  }
  if (typeof body.input !== 'string') return send(res, 422, '{"error":{"code":"validation_error"}}');
  const fingerprint = createHash('sha256').update(`POST\n/v1/text/generate\n${text}`).digest('hex');

  // 1. the rate point, the idempotency claim and the unit hold: the product's one statement,
  // committed without waiting for the WAL flush (as the product's provisional writes are), written
  // with the calls in flight as the product writes it (billing/batched-writes.ts)
  const holdId = randomUUID();
  const requestId = `floor_${holdId}`;
  const scope = { apiKeyId: key.id, method: 'POST', path: '/v1/text/generate', key: idempotencyKey };
  const statement = rateClaimHoldStatement({
    rate: { key: `rpm:${key.id}`, limit: key.rpm, windowSeconds: 60 },
    claim: { recordId: randomUUID(), scope, fingerprint, leaseSeconds: 120, retentionHours: 24 },
    hold: {
      apiKeyId: key.id,
      holdId,
      units: key.units,
      operation: 'text.generate',
      requestId,
      concurrency: key.concurrency,
      leaseSeconds: 300,
      budget: null,
      expectedCost: null,
      surface: 'v1',
    },
  });
  const row = await writeBatched<RateClaimHoldRow>(provisionalPool, RESERVE_PAID, { apiKeyId: key.id, statement });
  if (row.allowed === false) return send(res, 429, '{"error":{"code":"rate_limited"}}');
  if (!row.record_id) return send(res, 409, '{"error":{"code":"idempotency_key_in_use"}}');
  if (row.remaining === null) {
    await releaseIdempotencyKey(db, row.record_id);
    return send(res, 402, '{"error":{"code":"quota_exhausted"}}');
  }

  // 2. "engine" + record the usage: the product's capture of the hold, usage event and stored response, one statement
  const usageEventId = randomUUID();
  const response = JSON.stringify({
    id: usageEventId,
    object: 'generation',
    operation: 'text.generate',
    output: { text: `echo: ${body.input.slice(0, 200)}` },
    usage: { charged_units: key.units, remaining_units: row.remaining },
  });
  const usage = { usageEventId, packageVersionId: key.version_id, operation: 'text.generate', engine: 'local', requestId, durationMs: 0 };
  await captureHold(db, { holdId, apiKeyId: key.id }, usage, { recordId: row.record_id, status: 200, body: response });
  send(res, 200, response);
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    process.stderr.write(`[bare-floor] ${error instanceof Error ? error.message : String(error)}\n`);
    if (!res.headersSent) send(res, 500, '{"error":{"code":"internal_error"}}');
  });
});
server.keepAliveTimeout = 65_000;
const port = Number(process.env.PORT ?? 3900);
server.listen(port, process.env.HOST ?? '127.0.0.1', () => process.stdout.write(`[bare-floor] listening on ${port}\n`));
const stop = () => {
  server.close();
  server.closeAllConnections();
  void Promise.all([pool.end(), provisionalPool.end()]).finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
