import { z } from 'zod';
import { doc, PRODUCTION, RUNNING, settingDocs, type SettingDoc } from './config-doc';
import { jobSettings } from './config-settings-jobs';
import { limitSettings } from './config-settings-limits';
import { salesSettings } from './config-settings-sales';
import { listenHost } from './listening-url';
import { postgresUrl } from './postgres-url';

export type { ConfigShape } from './config-doc';

// Every setting the product reads, with its description and the shapes it matters in: the one
// source of the validation (server/config/index.ts) and of docs/configuration.md (npm run docs:config).
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const settings = {
  NODE_ENV: doc(
    z.enum(['development', 'production', 'test']).default('production'),
    'Set by the tools (`next dev`, vitest); the product runs as production: `npm start` and the production command set it so, whatever the shell has.',
  ),
  PORT: doc(z.coerce.number().int().min(1).max(65535).default(3000), 'The port API and dashboard are served on.', RUNNING),
  HOST: doc(listenHost.default('0.0.0.0'), 'The address the server listens on.', RUNNING),
  DATABASE_URL: doc(
    postgresUrl.optional(),
    'PostgreSQL to use. Unset, `npm start` runs an embedded PostgreSQL in the data dir; the production command and worker require it; the migrate step run with NODE_ENV=production (the container image) creates no embedded database.',
  ),
  MIGRATE_ON_START: doc(
    z.enum(['true', 'false'], 'must be true or false').default('false'),
    'With DATABASE_URL, the production command and the worker apply pending migrations as they start (under the migration lock) instead of refusing to serve. The embedded database is always migrated at start.',
    PRODUCTION,
  ),
  NEXTAUTH_URL: doc(
    z.url({ protocol: /^https?$/, error: "must be the dashboard's public URL, such as https://ops.example.com" }).optional(),
    "The dashboard's public URL (sign-in callbacks); http://localhost:PORT when unset.",
    RUNNING,
  ),
  NEXTAUTH_SECRET: doc(
    z.string().min(1, 'must not be empty (unset it to have one generated)').optional(),
    'Signs dashboard sessions; generated into the data dir when unset (single machine). Every instance needs the same one.',
    RUNNING,
  ),
  WGS_DATA_DIR: doc(z.string().default('.data'), 'Where the embedded PostgreSQL, local storage and generated secrets live.'),
  PUBLIC_BASE_URL: doc(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) origin, such as https://api.example.com' }).optional(),
    'Public origin used in upload and output URLs; defaults to the origin the client used (Host, or X-Forwarded-Host/-Proto with TRUST_PROXY).',
    RUNNING,
  ),
  SIGNING_SECRET: doc(
    z.string().min(32).optional(),
    'HMAC secret for signed URLs (32 characters at least); generated into the data dir when unset (single machine). Every instance needs the same one.',
  ),
  OUTPUT_URL_TTL_SECONDS: doc(positiveInt(900), 'How long a signed output URL stays valid.'),
  UPLOAD_TTL_SECONDS: doc(
    positiveInt(3600),
    'How long an upload may stay uncompleted before it expires and its bytes are deleted (its upload URL works that long too).',
  ),
  IDEMPOTENCY_RETENTION_HOURS: doc(positiveInt(24), 'How long a successful response stays replayable under its Idempotency-Key.'),
  IDEMPOTENCY_LEASE_SECONDS: doc(
    // At least 6: the engine call gets a second, and 5 are left for its settling, so that no request outlives its key.
    z.coerce.number().int().min(6, 'must be at least 6: the engine call is cut 5 s before the lease ends').default(120),
    'How long a request that never finished (a crash) holds its Idempotency-Key, at least 6. It also bounds every engine call, retries included: the call is cut IDEMPOTENCY_LEASE_SECONDS - 5 s after it starts and answered 503.',
  ),
  HOLD_LEASE_SECONDS: doc(
    positiveInt(300),
    'After this, the sweeper settles the hold of a request whose process died: it returns the units (and the concurrency slot), or captures them when a streamed answer had delivered output. Must be greater than IDEMPOTENCY_LEASE_SECONDS, so that a hold outlives its request.',
  ),
  CURRENCY: doc(
    z
      .string()
      .regex(/^[A-Z]{3}$/, { message: 'must be an ISO 4217 code such as USD', abort: true })
      .refine((code) => Intl.supportedValuesOf('currency').includes(code), 'must be an ISO 4217 code such as USD (XYZ is none)')
      .default('USD'),
    'The one currency (ISO 4217) of unit prices, provider costs and margins.',
  ),
  ASYNC_PROVISIONAL_COMMITS: doc(
    z.enum(['true', 'false'], 'must be true or false').default('true'),
    'Provisional writes of the paid hot path (claim, rate point, hold) commit without waiting for the WAL flush, set per connection with the startup option synchronous_commit=off. Set false behind a pooler that refuses startup options (PgBouncer without ignore_startup_parameters).',
  ),
  PLAN_LOOKUPS_BY_INDEX: doc(
    z.enum(['true', 'false'], 'must be true or false').default('true'),
    "The app's connections plan with the startup option enable_seqscan=off, so the rows every paid call reads and writes by key (its API key's, its rate window's) are found through their index even when the table has few rows and many dead row versions; planned for a table of one page, a sequential scan reads every page of it, hundreds, on every call. Set false behind a pooler that refuses startup options; `ALTER ROLE <role> SET enable_seqscan = off` does the same there.",
  ),
  REDIS_URL: doc(
    z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379' }).optional(),
    "Keep the requests-per-minute counts in this Redis instead of PostgreSQL (every instance must use the same one); a Redis that does not answer within a second refuses every /v1 request that counts against them (paid or not: GET /v1/key, job reads, uploads) with 503, charging nothing and counting nothing (a point a stalled Redis takes when it wakes, within 30 s, is given back); a finished request's retry is still its replay. Keep its data across restarts (compose: an append-only file): a Redis restarted empty forgets the minute's counts, and a key may then take its limit again in that minute (twice it for one restart, once more for each further one). GET /readyz checks it when set (within READINESS_TIMEOUT_MS).",
  ),
  KEY_CACHE_TTL_MS: doc(
    z.coerce.number().int().min(0).max(1000).default(500),
    'API key lookups are cached this long; a revocation or rotation reaches every listening instance at once (LISTEN/NOTIFY), any other within it.',
  ),
  DATABASE_QUERY_TIMEOUT_MS: doc(
    z.coerce.number().int().min(100).default(30_000),
    'How long the app waits for PostgreSQL to answer a query before the request fails closed (503).',
  ),
  READINESS_TIMEOUT_MS: doc(
    z.coerce.number().int().min(50).max(30_000).default(2_000),
    'How long GET /readyz waits for PostgreSQL (and Redis) to answer before it reports the dependency as failing (503).',
    RUNNING,
  ),
  SHUTDOWN_GRACE_SECONDS: doc(
    z.coerce.number().int().min(0).max(3600).default(25),
    'On SIGTERM, how long requests in flight may run on; those still running then are answered 503 and charged nothing. Keep it below the orchestrator’s kill timeout (Kubernetes terminationGracePeriodSeconds, minus the preStop pause).',
    RUNNING,
  ),
  PROVIDER_TIMEOUT_MS: doc(positiveInt(30_000), 'How long one attempt of a provider call may take (each retry has its own).'),
  PROVIDER_MAX_RETRIES: doc(
    z.coerce.number().int().min(0).max(5).default(2),
    'Retries of a provider call that may succeed on a second try (408, 409, 429, 5xx, no answer in time or at all), to the same engine, before any fallback.',
  ),
  PROVIDER_CIRCUIT_FAILURES: doc(
    z.coerce.number().int().min(0).max(1000).default(5),
    'Failures in a row after which a provider is skipped on every instance; 0 turns the circuit breaker off.',
  ),
  PROVIDER_CIRCUIT_OPEN_SECONDS: doc(
    z.coerce.number().int().min(1).max(3600).default(30),
    'How long a provider whose circuit opened is skipped.',
  ),
  PROVIDER_CIRCUIT_REFRESH_MS: doc(
    z.coerce.number().int().min(0).max(60_000).default(1000),
    'How often each instance re-reads the circuits from the database (one query for all providers).',
  ),
  PROVIDER_KEYS_SECRET: doc(
    z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional(),
    'The secret (32 characters or more) provider keys set with `providers set-key` are encrypted under (AES-256-GCM); generated into the data dir when unset. Set the same value on every instance, worker and the CLI.',
  ),
  PROVIDER_KEY_ENV_ALLOWED: doc(
    z
      .string()
      .regex(
        /^\s*([A-Z_][A-Z0-9_]*\s*(,\s*[A-Z_][A-Z0-9_]*\s*)*)?$/,
        'must be comma-separated variable names, e.g. OPENROUTER_API_KEY,TOGETHER_API_KEY',
      )
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      ),
    "Variables a provider's `api_key_env` may name besides its type's own (OPENAI_API_KEY for openai, ...), names ending in _API_KEY (but another type's own) and names starting with WGS_PROVIDER_KEY_ (comma-separated). Never a variable the service itself reads (docs/providers.md).",
  ),
  STORAGE_DRIVER: doc(
    z.enum(['local', 'vercel-blob', 's3']).optional(),
    'Where uploads and outputs are stored: local (the data dir; one machine), vercel-blob or s3. Unset: vercel-blob when BLOB_READ_WRITE_TOKEN is set, else local.',
  ),
  BLOB_READ_WRITE_TOKEN: doc(
    z
      .string()
      .regex(/^vercel_blob_rw_[A-Za-z0-9]+_[A-Za-z0-9]+$/, 'must be a Vercel Blob read-write token (vercel_blob_rw_<store>_<secret>)')
      .optional(),
    'Vercel Blob read-write token (STORAGE_DRIVER=vercel-blob).',
    PRODUCTION,
  ),
  S3_BUCKET: doc(
    z.string().min(3, 'must name the bucket objects are stored in').optional(),
    'S3-compatible storage (STORAGE_DRIVER=s3): the bucket objects are stored in.',
    PRODUCTION,
  ),
  S3_REGION: doc(z.string().min(1).default('us-east-1'), 'The S3 region of the bucket.', PRODUCTION),
  S3_ENDPOINT: doc(
    z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, such as http://127.0.0.1:9000' }).optional(),
    'S3 endpoint for servers other than AWS (MinIO, R2, ...).',
    PRODUCTION,
  ),
  S3_ACCESS_KEY_ID: doc(
    z.string().min(1).optional(),
    'S3 access key; with S3_SECRET_ACCESS_KEY, or neither for the default AWS credential chain.',
    PRODUCTION,
  ),
  S3_SECRET_ACCESS_KEY: doc(z.string().min(1).optional(), 'S3 secret key.', PRODUCTION),
  S3_FORCE_PATH_STYLE: doc(
    z.enum(['true', 'false'], 'must be true or false').default('false'),
    'Path-style bucket URLs (most servers other than AWS need true).',
    PRODUCTION,
  ),
  VERCEL_BLOB_API_URL: doc(
    z.string().optional(),
    "Vercel Blob's API origin (a stand-in server in tests); also read as NEXT_PUBLIC_VERCEL_BLOB_API_URL.",
    ['tests'],
    true,
  ),
  RUN_WORKER: doc(
    z.enum(['true', 'false']).default('true'),
    'Whether an app instance also runs video job workers. Set false when workers run apart (`npm run worker`, `npm run worker:production`).',
    RUNNING,
  ),
  ...jobSettings,
  ...limitSettings,
  ...salesSettings,
  SEED_PACKAGES_FILE: doc(
    z.string().optional(),
    'Packages file applied to an empty database as an instance starts (JSON, or YAML when its name ends in .yaml or .yml, as `packages apply` reads one); one named here must exist and be valid, or the start stops naming it. Unset: packages.example.json, when present.',
  ),
  REFUSALS_FLUSH_MS: doc(
    z.coerce.number().int().min(100, 'REFUSALS_FLUSH_MS must be at least 100').max(300_000).default(5_000),
    'How often each instance writes its in-memory counts of refused /v1 requests (a crash loses at most this much).',
  ),
  METRICS_PORT: doc(
    z.coerce.number().int().min(1).max(65535).optional(),
    'Prometheus metrics served on this port alone: open when HOST is loopback; on any other address only to a bearer of METRICS_TOKEN (the start refuses without one).',
    RUNNING,
  ),
  METRICS_TOKEN: doc(
    z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
    "Prometheus metrics at GET /metrics on the app's port, to a bearer of this token.",
    RUNNING,
  ),
  LOG_FORMAT: doc(
    z.enum(['json', 'pretty', 'off'], 'must be json, pretty or off').default('json'),
    'One line per /v1 request: JSON (default), pretty (a terminal) or off.',
  ),
  SESSION_MAX_AGE_SECONDS: doc(
    z.coerce.number().int().min(60).max(2_592_000).default(28_800),
    'A dashboard session ends this many seconds after sign-in (60 s to 30 days; 8 hours by default), with no sliding renewal, or at sign-out.',
    RUNNING,
  ),
  GITHUB_ID: doc(
    z.string().optional(),
    'GitHub OAuth app client id: with GITHUB_SECRET, offers sign-in with GitHub to operators whose e-mail it confirms.',
    RUNNING,
  ),
  GITHUB_SECRET: doc(z.string().optional(), 'GitHub OAuth app client secret.', RUNNING),
  GOOGLE_CLIENT_ID: doc(
    z.string().optional(),
    'Google OAuth client id: with GOOGLE_CLIENT_SECRET, offers sign-in with Google to operators whose e-mail it confirms.',
    RUNNING,
  ),
  GOOGLE_CLIENT_SECRET: doc(z.string().optional(), 'Google OAuth client secret.', RUNNING),
  OTEL_EXPORTER_OTLP_ENDPOINT: doc(
    z.string().optional(),
    'OTLP/HTTP endpoint for traces; no tracing code is loaded when neither it nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set.',
    RUNNING,
    true,
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: doc(
    z.string().optional(),
    'OTLP/HTTP endpoint for traces alone (takes precedence over OTEL_EXPORTER_OTLP_ENDPOINT).',
    RUNNING,
    true,
  ),
  OTEL_SERVICE_NAME: doc(z.string().optional(), 'service.name of the traces (default workflow-generation-service).', RUNNING),
  NEXT_DIST_DIR: doc(
    z.string().optional(),
    'Folder of the Next build (default .next); lets tests and benchmarks keep builds apart.',
    ['tests'],
    true,
  ),
  TEST_DATABASE_URL: doc(
    z.string().optional(),
    'Integration tests: a local PostgreSQL server to create throwaway databases on, instead of an embedded one.',
    ['tests'],
    true,
  ),
};

/** Every setting by name, with what docs/configuration.md says of it. */
export const SETTINGS: ReadonlyMap<string, SettingDoc & { schema: z.ZodType }> = new Map(
  Object.entries(settings).map(([name, schema]) => [name, { ...settingDocs.get(schema)!, schema }]),
);
