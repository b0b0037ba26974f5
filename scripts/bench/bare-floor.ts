// The "bare floor" of `npm run bench`: a plain node:http server with pg that does the same
// essential database work per paid request as the product's text.generate, and nothing else:
// key lookup (cached in memory), claim the idempotency key and hold the units (one statement,
// provisional commit), record the usage (capture the hold + usage event + stored response,
// durable commit). Same tables, same statement shapes and the same two pools as
// server/domain/{idempotency,quota}; no Next.js, no zod, no rate limit.
// It tells how much of the product's cost per request is the database work itself.
//
// Run: node --import tsx scripts/bench/bare-floor.ts   (env DATABASE_URL, PORT, HOST)
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';

interface KeyRow {
  id: string;
  version_id: string;
  concurrency: number;
  units: number;
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20, idleTimeoutMillis: 30_000 });
pool.on('error', () => {});
const provisionalPool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  idleTimeoutMillis: 30_000,
  options: '-c synchronous_commit=off',
});
provisionalPool.on('error', () => {});
const keys = new Map<string, KeyRow | null>();

async function lookupKey(secret: string): Promise<KeyRow | null> {
  const hash = createHash('sha256').update(secret).digest('hex');
  if (keys.has(hash)) return keys.get(hash)!;
  const { rows } = await pool.query<KeyRow>({
    name: 'floor-key',
    text: `SELECT k.id, v.id AS version_id, v.concurrency, (v.operations->'text.generate'->>'units')::int AS units
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

/** Claims the idempotency key and holds the units, one statement. */
const CLAIM_AND_HOLD = `WITH claim AS (
         INSERT INTO idempotency_records AS r
           (id, api_key_id, method, path, key, fingerprint, status, locked_until, expires_at)
         VALUES ($1, $2, 'POST', '/v1/text/generate', $3, $4, 'running', now() + make_interval(secs => 120), now() + make_interval(hours => 24))
         ON CONFLICT (api_key_id, method, path, key) DO UPDATE
           SET id = EXCLUDED.id, status = 'running', locked_until = EXCLUDED.locked_until
           WHERE (r.status = 'running' AND r.locked_until < now()) OR r.expires_at < now()
         RETURNING id
       ), taken AS (
         UPDATE api_keys SET remaining_units = remaining_units - $5, in_flight = in_flight + 1
          WHERE id = $2 AND status = 'active' AND in_flight < $6 AND remaining_units >= $5 AND EXISTS (SELECT 1 FROM claim)
         RETURNING remaining_units
       ), hold AS (
         INSERT INTO unit_holds (id, api_key_id, units, operation, request_id, lease_until)
         SELECT $7::uuid, $2::uuid, $5::int, 'text.generate', $8::text, now() + make_interval(secs => 300) FROM taken
         RETURNING id
       )
       SELECT (SELECT id FROM claim) AS record_id, (SELECT remaining_units FROM taken) AS remaining`;

/** Captures the hold, records the usage event and stores the response, one statement. */
const CAPTURE = `WITH hold AS (
         UPDATE unit_holds SET status = 'captured', settled_at = now()
          WHERE id = $1 AND status = 'held'
         RETURNING api_key_id, units, counts_in_flight
       ), key AS (
         UPDATE api_keys k SET in_flight = k.in_flight - (CASE WHEN h.counts_in_flight THEN 1 ELSE 0 END), last_used_at = now()
           FROM hold h WHERE k.id = h.api_key_id
         RETURNING k.id
       ), usage AS (
         INSERT INTO usage_events (id, api_key_id, package_version_id, operation, engine, outcome, units, request_id, hold_id, duration_ms)
         SELECT $2::uuid, api_key_id, $3::uuid, 'text.generate', 'local', 'succeeded', units, $4::text, $1::uuid, 0 FROM hold
         RETURNING id
       ), idem AS (
         UPDATE idempotency_records SET status = 'completed', response_status = 200, response_body = $6
          WHERE id = $5::uuid AND EXISTS (SELECT 1 FROM hold)
         RETURNING id
       )
       SELECT (SELECT count(*) FROM hold)::int AS captured, (SELECT count(*) FROM key)::int AS keys,
              (SELECT count(*) FROM usage)::int AS usage, (SELECT count(*) FROM idem)::int AS idem`;

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

  // 1. claim the idempotency key and hold the units, one statement, committed without
  // waiting for the WAL flush (as the product's provisional writes are)
  const holdId = randomUUID();
  const held = await provisionalPool.query<{ record_id: string | null; remaining: number | null }>({
    name: 'floor-claim-and-hold',
    text: CLAIM_AND_HOLD,
    values: [randomUUID(), key.id, idempotencyKey, fingerprint, key.units, key.concurrency, holdId, `floor_${holdId}`],
  });
  const recordId = held.rows[0]?.record_id;
  if (!recordId) return send(res, 409, '{"error":{"code":"idempotency_key_in_use"}}');
  const remaining = held.rows[0]?.remaining;
  if (remaining === null || remaining === undefined) {
    await pool.query({ name: 'floor-release-key', text: `DELETE FROM idempotency_records WHERE id = $1`, values: [recordId] });
    return send(res, 402, '{"error":{"code":"quota_exhausted"}}');
  }

  // 3. "engine" + record the usage: capture the hold, usage event, stored response, one statement
  const usageEventId = randomUUID();
  const response = JSON.stringify({
    id: usageEventId,
    object: 'generation',
    operation: 'text.generate',
    output: { text: `echo: ${body.input.slice(0, 200)}` },
    usage: { charged_units: key.units, remaining_units: remaining },
  });
  await pool.query({
    name: 'floor-capture',
    text: CAPTURE,
    values: [holdId, usageEventId, key.version_id, `floor_${holdId}`, recordId, response],
  });
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
